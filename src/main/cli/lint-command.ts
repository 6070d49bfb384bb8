import { Command } from 'commander';
import { existsSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { levelOfSeverity, lintGateRules } from '../../shared/gate/rule-catalog.js';
import { failsOn, type FailOn } from '../../shared/gate/levels.js';
import { entryFileName } from '../engine/cassette/names.js';
import { sarifLog, type GateResult } from '../engine/gate/sarif.js';
import { failOnOption, formatOption, toFailOn, toFormat, type Format } from './gate-options.js';
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

/** `mcp-rewind lint`: the insight checks (protocol, security) on a recording; exit 1 on any error (--fail-on). */
export function buildLintProgram(): Command {
  return new Command('mcp-rewind lint')
    .description('Check every recorded exchange against the protocol and for security warnings (exit 1 on any error)')
    .helpOption('-h, --help', 'show this help')
    .option('-c, --cache <path>', 'cassette folder, single-file cassette or HAR file', './cache')
    .option('--junit <file>', 'write a JUnit XML report (one test case per exchange)')
    .option('--json', 'print the findings as JSON instead of text (--format json)')
    .addOption(formatOption())
    .addOption(failOnOption('error'));
}

export interface LintCliOptions {
  cache: string;
  junit?: string;
  format: Format;
  failOn: FailOn;
}

export function toLintOptions(raw: Record<string, unknown>): LintCliOptions {
  const cache = String(raw.cache);
  if (!existsSync(cache)) throw new UsageError(`--cache ${cache} does not exist`);
  return {
    cache,
    junit: raw.junit as string | undefined,
    format: toFormat(raw),
    failOn: toFailOn(raw.failOn),
  };
}

export interface LintedExchange {
  n: number;
  method: string;
  tool?: string;
  key: string;
  /** the file it was recorded in: the entry's in a cassette folder, else the recording itself */
  file: string;
  problems: Finding[];
}

/** The recording's exchanges, each checked in recorded order (one analyzer: one server, its sessions and lists). */
export async function lintRecording(
  path: string,
): Promise<{ name: string; exchanges: LintedExchange[]; skipped: string[] }> {
  const imported = await importTraffic(path);
  const analyzer = new InsightAnalyzer({ validate: checkAgainstSchema, countTokens: await loadTokenCounter() });
  const folder = statSync(path).isDirectory();
  // a cassette's exchange is asked with its entry's number as the request id (traffic-import.ts)
  const fileOf = (e: ExchangeEvent): string =>
    folder && typeof e.request.id === 'number' ? join(path, entryFileName(e.request.id, e.key)) : path;
  const exchanges = imported.events.map((e: ExchangeEvent, i) => ({
    n: i + 1,
    method: e.method,
    ...(e.tool ? { tool: e.tool } : {}),
    key: e.key,
    file: fileOf(e),
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

/** The findings as SARIF: one result per finding, on the entry file of its exchange, its JSON path inside. */
export function lintSarif(exchanges: readonly LintedExchange[]): object {
  const results: GateResult[] = exchanges.flatMap((x) =>
    x.problems.map((p) => ({
      ruleId: p.id,
      level: levelOfSeverity(p.severity),
      message: `#${x.n} ${x.method}${x.tool ? ` ${x.tool}` : ''}: ${p.path}: ${p.message}`,
      file: x.file,
      where: p.path,
    })),
  );
  return sarifLog('lint', lintGateRules(), results);
}

function report(options: LintCliOptions, name: string, exchanges: LintedExchange[]): string {
  if (options.format === 'sarif') return JSON.stringify(lintSarif(exchanges), null, 2) + '\n';
  if (options.format === 'text') return textReport(name, exchanges);
  const found = exchanges.filter((x) => x.problems.length > 0);
  return JSON.stringify({ cassette: resolve(options.cache), exchanges: found }, null, 2) + '\n';
}

/** Runs lint, prints the report (and writes --junit); resolves with the exit status: 1 when a finding reaches --fail-on. */
export async function runLint(
  options: LintCliOptions,
  out: (text: string) => void,
  log: (line: string) => void,
): Promise<number> {
  const { name, exchanges, skipped } = await lintRecording(options.cache);
  for (const line of skipped) log(`mcp-rewind: lint: skipped ${line}`);
  out(report(options, name, exchanges));
  if (options.junit)
    await writeAtomic(dirname(resolve(options.junit)), basename(options.junit), lintJunit(name, exchanges));
  const levels = exchanges.flatMap((x) => x.problems.map((p) => levelOfSeverity(p.severity)));
  return failsOn(options.failOn, levels) ? 1 : 0;
}
