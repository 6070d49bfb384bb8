import { Command } from 'commander';
import { existsSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { InsightAnalyzer } from '../../shared/insight/analyzer.js';
import type { Finding } from '../../shared/insight/findings.js';
import { oneLine } from '../../shared/terminal-text.js';
import type { ExchangeEvent } from '../../shared/traffic.js';
import { checkAgainstSchema } from '../api/verbs/schema-check.js';
import { importTraffic } from '../api/traffic/traffic-import.js';
import { UsageError } from '../engine/errors.js';
import { writeAtomic } from '../engine/fs/atomic-write.js';
import { loadTokenCounter } from '../engine/insight/tokens.js';
import { xmlEscape } from './verify-command.js';

/** `mcp-rewind lint`: the insight checks (protocol, security) on a recording; exit 1 on any error. */
export function buildLintProgram(): Command {
  return new Command('mcp-rewind lint')
    .description('Check every recorded exchange against the protocol and for security warnings (exit 1 on any error)')
    .helpOption('-h, --help', 'show this help')
    .option('-c, --cache <path>', 'cassette folder, single-file cassette or HAR file', './cache')
    .option('--junit <file>', 'write a JUnit XML report (one test case per exchange)')
    .option('--json', 'print the findings as JSON instead of text');
}

export interface LintCliOptions {
  cache: string;
  junit?: string;
  json: boolean;
}

export function toLintOptions(raw: Record<string, unknown>): LintCliOptions {
  const cache = String(raw.cache);
  if (!existsSync(cache)) throw new UsageError(`--cache ${cache} does not exist`);
  return { cache, junit: raw.junit as string | undefined, json: raw.json === true };
}

export interface LintedExchange {
  n: number;
  method: string;
  tool?: string;
  key: string;
  problems: Finding[];
}

/** The recording's exchanges, each checked in recorded order (one analyzer: one server, its sessions and lists). */
export async function lintRecording(
  path: string,
): Promise<{ name: string; exchanges: LintedExchange[]; skipped: string[] }> {
  const imported = await importTraffic(path);
  const analyzer = new InsightAnalyzer({ validate: checkAgainstSchema, countTokens: await loadTokenCounter() });
  const exchanges = imported.events.map((e: ExchangeEvent, i) => ({
    n: i + 1,
    method: e.method,
    ...(e.tool ? { tool: e.tool } : {}),
    key: e.key,
    problems: analyzer.analyze({ ...e, seq: i + 1 }, imported.name).problems,
  }));
  return { name: imported.name, exchanges, skipped: imported.skipped };
}

export function lintJunit(name: string, exchanges: LintedExchange[], timestamp = new Date()): string {
  const failures = exchanges.filter((x) => x.problems.some((p) => p.severity === 'error')).length;
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="mcp-rewind lint" tests="${exchanges.length}" failures="${failures}">`,
    `  <testsuite name="${xmlEscape(name)}" tests="${exchanges.length}" failures="${failures}" timestamp="${timestamp.toISOString().slice(0, 19)}">`,
  ];
  for (const x of exchanges) {
    const open = `    <testcase name="${xmlEscape(`#${x.n} ${x.key}`)}" classname="${xmlEscape(`mcp-rewind.lint.${x.method}`)}"`;
    const errors = x.problems.filter((p) => p.severity === 'error');
    if (errors.length === 0) {
      const notes = x.problems.map((p) => `${p.severity} ${p.id} at ${p.path}: ${p.message}`).join('\n');
      lines.push(notes ? `${open}><system-out>${xmlEscape(notes)}</system-out></testcase>` : `${open}/>`);
      continue;
    }
    lines.push(`${open}>`);
    for (const p of errors)
      lines.push(
        `      <failure type="${xmlEscape(p.id)}" message="${xmlEscape(`${p.path}: ${p.message}`)}">${xmlEscape(`${p.spec}${p.detail ? `\n${p.detail}` : ''}`)}</failure>`,
      );
    lines.push('    </testcase>');
  }
  lines.push('  </testsuite>', '</testsuites>', '');
  return lines.join('\n');
}

function textReport(name: string, exchanges: LintedExchange[]): string {
  const lines: string[] = [];
  for (const x of exchanges)
    for (const p of x.problems) {
      lines.push(
        oneLine(`#${x.n} ${x.method}${x.tool ? ` ${x.tool}` : ''}  ${p.severity}  ${p.id}  ${p.path}: ${p.message}`),
      );
      if (p.detail) for (const d of p.detail.split('\n').slice(0, 20)) lines.push(oneLine(`      ${d}`));
    }
  const all = exchanges.flatMap((x) => x.problems);
  const count = (s: string): number => all.filter((p) => p.severity === s).length;
  lines.push(
    `${name}: ${exchanges.length} exchanges checked, ${count('error')} errors, ${count('warning')} warnings, ${count('info')} notes`,
  );
  return lines.join('\n') + '\n';
}

/** Runs lint, prints the report (and writes --junit); resolves with the exit status: 0 no error, 1 an error. */
export async function runLint(
  options: LintCliOptions,
  out: (text: string) => void,
  log: (line: string) => void,
): Promise<number> {
  const { name, exchanges, skipped } = await lintRecording(options.cache);
  for (const line of skipped) log(`mcp-rewind: lint: skipped ${line}`);
  if (options.json)
    out(
      JSON.stringify(
        { cassette: resolve(options.cache), exchanges: exchanges.filter((x) => x.problems.length > 0) },
        null,
        2,
      ) + '\n',
    );
  else out(textReport(name, exchanges));
  if (options.junit)
    await writeAtomic(dirname(resolve(options.junit)), basename(options.junit), lintJunit(name, exchanges));
  return exchanges.some((x) => x.problems.some((p) => p.severity === 'error')) ? 1 : 0;
}
