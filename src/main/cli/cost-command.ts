import { Command } from 'commander';
import { existsSync } from 'node:fs';
import { costDiff, costOf, type CostDiff, type CostReport } from '../../shared/insight/cost.js';
import { oneLine } from '../../shared/terminal-text.js';
import { importTraffic } from '../api/traffic/traffic-import.js';
import { UsageError } from '../engine/errors.js';
import { loadTokenCounter, TOKENIZER_LABEL } from '../engine/insight/tokens.js';

/** `mcp-rewind cost`: what a recording puts in a model's context, in tokens, and the difference from another. */
export function buildCostProgram(): Command {
  return new Command('mcp-rewind cost')
    .description(
      'Count the tokens a recording puts in the context (tool lists before the first call, descriptions, results)',
    )
    .helpOption('-h, --help', 'show this help')
    .option('-c, --cache <path>', 'cassette folder, single-file cassette or HAR file', './cache')
    .option('--against <path>', 'another recording to compare with (its cost minus this one’s)')
    .option('--json', 'print the report as JSON');
}

export interface CostCliOptions {
  cache: string;
  against?: string;
  json: boolean;
}

export function toCostOptions(raw: Record<string, unknown>): CostCliOptions {
  const cache = String(raw.cache);
  const against = raw.against as string | undefined;
  for (const path of [cache, against])
    if (path !== undefined && !existsSync(path))
      throw new UsageError(`${path === cache ? '--cache' : '--against'} ${path} does not exist`);
  return { cache, against, json: raw.json === true };
}

export async function costOfRecording(path: string): Promise<CostReport> {
  const imported = await importTraffic(path);
  const events = imported.events.map((e, i) => ({ ...e, seq: i + 1 })); // numbered as lint numbers them
  return costOf(events, await loadTokenCounter(), imported.name, TOKENIZER_LABEL);
}

const n = (value: number): string => value.toLocaleString('en-US');
const signed = (value: number): string => (value > 0 ? `+${n(value)}` : n(value));

export function formatCost(r: CostReport): string {
  const lines = [
    `${oneLine(r.label)}: ${n(r.beforeFirstCall)} tokens before the first call (${r.tokenizer}; other models' tokenizers differ by about 10–20%)`,
    `  tools ${n(r.lists.tool)} · prompts ${n(r.lists.prompt)} · resources ${n(r.lists.resource)} · templates ${n(r.lists.template)} · instructions ${n(r.lists.instructions)}`,
    `  results: ${r.results.count} (${n(r.results.tokens)} tokens${r.results.largest ? `; largest #${r.results.largest.seq} ${r.results.largest.tool ?? r.results.largest.method}: ${n(r.results.largest.tokens)}` : ''})`,
  ];
  if (r.largestDescriptions.length) lines.push('  largest descriptions:');
  for (const d of r.largestDescriptions)
    lines.push(oneLine(`    ${n(d.description).padStart(7)}  ${d.kind} ${d.name} (whole definition ${n(d.tokens)})`));
  return lines.join('\n') + '\n';
}

export function formatCostDiff(d: CostDiff): string {
  const lines = [
    oneLine(
      `${d.b} against ${d.a}: ${signed(d.beforeFirstCall.b - d.beforeFirstCall.a)} tokens before the first call (${n(d.beforeFirstCall.a)} → ${n(d.beforeFirstCall.b)})`,
    ),
    `  results: ${n(d.results.a)} → ${n(d.results.b)}`,
  ];
  for (const c of d.changes.slice(0, 50)) {
    const what = c.a === undefined ? 'added' : c.b === undefined ? 'removed' : `${n(c.a)} → ${n(c.b)}`;
    lines.push(oneLine(`  ${signed((c.b ?? 0) - (c.a ?? 0)).padStart(8)}  ${c.kind} ${c.name} (${what})`));
  }
  if (d.changes.length > 50) lines.push(`  … and ${d.changes.length - 50} more`);
  return lines.join('\n') + '\n';
}

export async function runCost(options: CostCliOptions, out: (text: string) => void): Promise<void> {
  const report = await costOfRecording(options.cache);
  if (!options.against) return out(options.json ? JSON.stringify(report, null, 2) + '\n' : formatCost(report));
  const diff = costDiff(report, await costOfRecording(options.against));
  out(options.json ? JSON.stringify(diff, null, 2) + '\n' : formatCost(report) + formatCostDiff(diff));
}
