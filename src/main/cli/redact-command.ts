import { Command, CommanderError } from 'commander';
import { existsSync } from 'node:fs';
import { failsOn, type FailOn } from '../../shared/gate/levels.js';
import { secretGateRules } from '../../shared/gate/secret-rules.js';
import { oneLine } from '../../shared/terminal-text.js';
import { UsageError } from '../engine/errors.js';
import { sarifLog } from '../engine/gate/sarif.js';
import { scanForSecrets, type SecretScan } from '../engine/gate/secret-scan.js';
import { failOnOption, formatOption, toFailOn, toFormat, type Format } from './gate-options.js';

/** `mcp-rewind redact --scan <cassette>`: secrets left in a cassette (exit 1 when one is found). */
export function buildRedactProgram(): Command {
  return new Command('mcp-rewind redact')
    .description(
      'Scan a cassette for secrets left in it: tokens, API keys, credentials, private keys, JWTs (exit 1 when found)',
    )
    .helpOption('-h, --help', 'show this help')
    .requiredOption('--scan <path>', 'the cassette folder, single-file cassette or HAR file to scan')
    .option('--json', 'print the findings as JSON (--format json)')
    .addOption(formatOption())
    .addOption(failOnOption('error'));
}

export interface RedactCliOptions {
  scan: string;
  format: Format;
  failOn: FailOn;
}

export function toRedactOptions(raw: Record<string, unknown>): RedactCliOptions {
  const scan = String(raw.scan);
  if (!existsSync(scan)) throw new UsageError(`--scan ${scan} does not exist`);
  return { scan, format: toFormat(raw), failOn: toFailOn(raw.failOn) };
}

function textReport(target: string, scan: SecretScan): string {
  const lines = scan.findings.map((f) => oneLine(`${f.file}  ${f.path}  ${f.rule}  ${f.found}`));
  const n = scan.findings.length;
  lines.push(
    n === 0
      ? `${target}: ${scan.files} files scanned, no secret found`
      : `${target}: ${scan.files} files scanned, ${n} secret${n === 1 ? '' : 's'} found — redact them (--redact <regex> when recording) and re-record or edit the files`,
  );
  return lines.join('\n') + '\n';
}

function report(options: RedactCliOptions, scan: SecretScan): string {
  if (options.format === 'json') return JSON.stringify({ cassette: options.scan, ...scan }, null, 2) + '\n';
  if (options.format === 'text') return textReport(options.scan, scan);
  const results = scan.findings.map((f) => ({
    ruleId: f.rule,
    level: 'error' as const,
    message: `${f.path}: ${f.found}`,
    file: f.file,
    where: f.path,
  }));
  return JSON.stringify(sarifLog('redact --scan', secretGateRules(), results), null, 2) + '\n';
}

export async function runRedactScan(
  options: RedactCliOptions,
  out: (text: string) => void,
  log: (line: string) => void,
): Promise<number> {
  const scan = await scanForSecrets(options.scan);
  for (const line of scan.skipped) log(`mcp-rewind: redact --scan: skipped ${line}`);
  out(report(options, scan));
  return failsOn(
    options.failOn,
    scan.findings.map(() => 'error' as const),
  )
    ? 1
    : 0;
}

/** The subcommand: exit status 0 (nothing found), 1 (a secret, or a file that cannot be read), 2 (usage). */
export async function redactCommand(
  argv: string[],
  io: { out(text: string): void; err(line: string): void },
): Promise<number> {
  const program = buildRedactProgram()
    .exitOverride()
    .configureOutput({ writeOut: io.out, writeErr: () => {} });
  let options: RedactCliOptions;
  try {
    program.parse([argv[0], argv[1], ...argv.slice(3)]);
    options = toRedactOptions(program.opts());
  } catch (error) {
    if (error instanceof CommanderError && error.code === 'commander.helpDisplayed') return 0;
    if (!(error instanceof CommanderError) && !(error instanceof UsageError)) throw error;
    io.err(`mcp-rewind: ${error.message.replace(/^error: /, '')} (see mcp-rewind redact --help)`);
    return 2;
  }
  return runRedactScan(options, io.out, io.err).catch((error: Error) => {
    io.err(`mcp-rewind: redact --scan: ${error.message}`);
    return 1;
  });
}
