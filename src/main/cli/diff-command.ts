import { Command, Option } from 'commander';
import { existsSync } from 'node:fs';
import { diffCassettes, type CassetteDiff, type DiffFinding } from '../engine/cassette/cassette-diff.js';
import { diffGateRules } from '../../shared/gate/diff-rules.js';
import { failsOn, type FailOn } from '../../shared/gate/levels.js';
import { sarifLog } from '../engine/gate/sarif.js';
import { failOnOption, formatOption, toFailOn, toFormat, type Format } from './gate-options.js';
import { UsageError } from '../engine/errors.js';
import { ignoreFieldsOption } from './verify-command.js';
import { oneLine } from '../../shared/terminal-text.js';
import { collect } from './repeatable.js';

/** `mcp-rewind diff <A> <B>`: what changed between two recordings (exit 1 on a breaking tool change, by default). */
export function buildDiffProgram(): Command {
  return new Command('mcp-rewind diff')
    .description(
      'Compare two cassettes: keys added, removed and changed, and tools rated breaking or compatible (exit 1 on breaking)',
    )
    .helpOption('-h, --help', 'show this help')
    .argument('<a>', 'the earlier cassette (folder or single file)')
    .argument('<b>', 'the later cassette (folder or single file)')
    .option('--json', 'print the comparison as JSON (--format json)')
    .addOption(formatOption())
    .addOption(failOnOption('breaking'))
    .addOption(
      new Option(
        '--ignore-fields <pattern>',
        'field left out when answers are compared, at any depth (e.g. "**.timestamp"); repeatable',
      ).argParser(collect),
    );
}

export interface DiffCliOptions {
  a: string;
  b: string;
  format: Format;
  failOn: FailOn;
  ignoreFields: string[];
}

export function toDiffOptions(raw: Record<string, unknown>, args: string[]): DiffCliOptions {
  const [a, b] = args;
  for (const path of [a, b]) if (!existsSync(path)) throw new UsageError(`cassette ${path} does not exist`);
  const ignoreFields = ignoreFieldsOption(raw.ignoreFields);
  return { a, b, format: toFormat(raw), failOn: toFailOn(raw.failOn), ignoreFields };
}

/** A tool change's line: its rating (from its level: an error breaks a client), the tool, where, what. */
function toolLine(f: DiffFinding): string {
  const label = (f.level === 'error' ? 'BREAKING' : 'compatible').padEnd(10);
  return `  ${label}  ${oneLine(f.tool ?? '')}: ${f.at ? `${oneLine(f.at)}: ` : ''}${oneLine(f.message)}`;
}

/** A key's lines: added / removed / changed and the key, then each changed value. */
function keyLines(f: DiffFinding): string[] {
  return [
    `  ${f.message.padEnd(7)}  ${oneLine(f.key ?? '')}`,
    ...(f.changes ?? []).map((c) => `             ${oneLine(c)}`),
  ];
}

/** The readable comparison, every line from one finding: the tools, rated, then the keys, then the totals of them. */
export function formatDiff(diff: CassetteDiff): string {
  const lines = [`mcp-rewind diff — ${oneLine(diff.a)} → ${oneLine(diff.b)}`];
  const count = (kind: string): number => diff.tools.filter((t) => t.change === kind).length;
  if (diff.toolsNotCompared) lines.push(`tools: not compared (${diff.toolsNotCompared})`);
  else lines.push(`tools: ${count('removed')} removed, ${count('added')} added, ${count('changed')} changed`);
  for (const f of diff.findings) if (f.tool !== undefined) lines.push(toolLine(f));
  const { breaking, compatible, keysAdded, keysRemoved, keysChanged } = diff.counts;
  lines.push(`keys: ${keysAdded} added, ${keysRemoved} removed, ${keysChanged} changed`);
  for (const f of diff.findings) if (f.key !== undefined) lines.push(...keyLines(f));
  lines.push(
    `${breaking} breaking, ${compatible} compatible tool change${compatible === 1 ? '' : 's'} — ${diff.breaking ? 'BREAKING' : 'no breaking change'}`,
  );
  return lines.join('\n') + '\n';
}

/** The comparison as SARIF: one result per finding, on the cassette file it rests on. */
export function diffSarif(diff: CassetteDiff): object {
  const results = diff.findings.map((f) => ({
    ruleId: f.rule,
    level: f.level,
    message:
      f.tool !== undefined
        ? `${f.tool}: ${f.at ? `${f.at}: ` : ''}${f.message}`
        : `${f.key}: ${f.message}${f.changes?.length ? ` (${f.changes[0]}${f.changes.length > 1 ? ', …' : ''})` : ''}`,
    file: f.file,
    where: f.tool !== undefined ? `${f.tool}${f.at ? `.${f.at}` : ''}` : f.key,
  }));
  return sarifLog('diff', diffGateRules(), results);
}

/** Runs the comparison and prints it; resolves with the exit status: 1 when a finding reaches --fail-on, else 0. */
export async function runDiff(
  options: DiffCliOptions,
  out: (text: string) => void,
  log?: (line: string) => void,
): Promise<number> {
  const diff = await diffCassettes(options.a, options.b, { ignoreFields: options.ignoreFields, log });
  if (options.format === 'json') out(JSON.stringify(diff, null, 2) + '\n');
  else if (options.format === 'sarif') out(JSON.stringify(diffSarif(diff), null, 2) + '\n');
  else out(formatDiff(diff));
  return failsOn(
    options.failOn,
    diff.findings.map((f) => f.level),
  )
    ? 1
    : 0;
}
