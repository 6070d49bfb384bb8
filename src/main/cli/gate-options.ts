import { Option } from 'commander';
import { FAIL_ON, parseFailOn, type FailOn } from '../../shared/gate/levels.js';
import { UsageError } from '../engine/errors.js';

/** `--fail-on` and `--format`, shared by lint, diff and redact --scan (the CI gate's options, issue 33). */

export const FORMATS = ['text', 'json', 'sarif'] as const;
export type Format = (typeof FORMATS)[number];

export const failOnOption = (fallback: FailOn): Option =>
  new Option(
    '--fail-on <level>',
    `exit 1 from this level up: error (or breaking), warning, note, never (default ${fallback})`,
  ).default(fallback);

export const formatOption = (): Option =>
  new Option('--format <format>', 'text, json, or sarif (SARIF 2.1.0 for code scanning)').default('text');

export function toFailOn(value: unknown): FailOn {
  const failOn = parseFailOn(value);
  if (!failOn) throw new UsageError(`--fail-on ${String(value)}: expected one of ${FAIL_ON.join(', ')}`);
  return failOn;
}

/** `--format`, with `--json` as the older spelling of `--format json`. */
export function toFormat(raw: Record<string, unknown>): Format {
  const format = FORMATS.find((f) => f === String(raw.format ?? 'text').toLowerCase());
  if (!format) throw new UsageError(`--format ${String(raw.format)}: expected one of ${FORMATS.join(', ')}`);
  if (raw.json === true && format !== 'text' && format !== 'json')
    throw new UsageError(`--json and --format ${format} together: give one`);
  return raw.json === true ? 'json' : format;
}
