import { Command, Option } from 'commander';
import { existsSync } from 'node:fs';
import { diffCassettes, type CassetteDiff } from '../engine/cassette/cassette-diff.js';
import { UsageError } from '../engine/errors.js';
import { ignoreFieldsOption } from './verify-command.js';
import { oneLine } from '../../shared/terminal-text.js';
import { collect } from './repeatable.js';

/** `mcp-rewind diff <A> <B>`: what changed between two recordings (exit 1 on a breaking tool change). */
export function buildDiffProgram(): Command {
  return new Command('mcp-rewind diff')
    .description(
      'Compare two cassettes: keys added, removed and changed, and tools rated breaking or compatible (exit 1 on breaking)',
    )
    .helpOption('-h, --help', 'show this help')
    .argument('<a>', 'the earlier cassette (folder or single file)')
    .argument('<b>', 'the later cassette (folder or single file)')
    .option('--json', 'print the comparison as JSON')
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
  json: boolean;
  ignoreFields: string[];
}

export function toDiffOptions(raw: Record<string, unknown>, args: string[]): DiffCliOptions {
  const [a, b] = args;
  for (const path of [a, b]) if (!existsSync(path)) throw new UsageError(`cassette ${path} does not exist`);
  const ignoreFields = ignoreFieldsOption(raw.ignoreFields);
  return { a, b, json: raw.json === true, ignoreFields };
}

const RATING = { breaking: 'BREAKING', compatible: 'compatible' } as const;

/** The readable comparison: the tools, rated, then the keys, then a summary line. */
export function formatDiff(diff: CassetteDiff): string {
  const lines = [`mcp-rewind diff — ${oneLine(diff.a)} → ${oneLine(diff.b)}`];
  const count = (kind: string): number => diff.tools.filter((t) => t.change === kind).length;
  if (diff.toolsNotCompared) lines.push(`tools: not compared (${diff.toolsNotCompared})`);
  else lines.push(`tools: ${count('removed')} removed, ${count('added')} added, ${count('changed')} changed`);
  for (const t of diff.tools) {
    if (t.change !== 'changed') lines.push(`  ${RATING[t.rating].padEnd(10)}  ${oneLine(t.tool)}: ${t.change}`);
    for (const d of t.details)
      lines.push(`  ${RATING[d.rating].padEnd(10)}  ${oneLine(t.tool)}: ${oneLine(d.at)}: ${oneLine(d.what)}`);
  }
  const { added, removed, changed } = diff.keys;
  lines.push(`keys: ${added.length} added, ${removed.length} removed, ${changed.length} changed`);
  for (const key of added) lines.push(`  added    ${oneLine(key)}`);
  for (const key of removed) lines.push(`  removed  ${oneLine(key)}`);
  for (const c of changed) {
    lines.push(`  changed  ${oneLine(c.key)}`);
    for (const line of c.changes) lines.push(`             ${oneLine(line)}`);
  }
  const { breaking, compatible } = diff.counts;
  lines.push(
    `${breaking} breaking, ${compatible} compatible tool change${compatible === 1 ? '' : 's'} — ${diff.breaking ? 'BREAKING' : 'no breaking change'}`,
  );
  return lines.join('\n') + '\n';
}

/** Runs the comparison and prints it; resolves with the exit status: 0 no breaking change, 1 breaking. */
export async function runDiff(
  options: DiffCliOptions,
  out: (text: string) => void,
  log?: (line: string) => void,
): Promise<number> {
  const diff = await diffCassettes(options.a, options.b, { ignoreFields: options.ignoreFields, log });
  out(options.json ? JSON.stringify(diff, null, 2) + '\n' : formatDiff(diff));
  return diff.breaking ? 1 : 0;
}
