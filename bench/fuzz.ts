/**
 * The full fuzz run: ≥ 10,000 seeded hostile inputs per endpoint (MCP record / replay, legacy SSE, serve REST + MCP,
 * the browser shell's page and WebSocket bridge), real instances in this process.
 *
 *   node --expose-gc --import tsx bench/fuzz.ts [--seed N] [--count N]
 *
 * Prints the figures as a markdown table and writes bench/results/fuzz.md. Exits 1 on any crash, 5xx, hang or failed
 * client check; each finding names (seed, target, index), which `inputFor` in test/fuzz/run-fuzz.ts regenerates.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import {
  figuresTable,
  histogram,
  KNOWN_ISSUES,
  runFuzz,
  TARGETS,
  type Finding,
  type TargetName,
} from '../test/fuzz/run-fuzz.js';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  if (i < 0) return fallback;
  const n = Number(process.argv[i + 1]);
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`--${name} needs a non-negative integer`);
  return n;
}

async function main(): Promise<void> {
  const seed = arg('seed', 1);
  const count = arg('count', 10_000);
  const only = process.argv.indexOf('--targets');
  const targets = only >= 0 ? (process.argv[only + 1].split(',') as TargetName[]) : TARGETS;
  const gc = typeof (globalThis as { gc?: unknown }).gc === 'function';
  const log = (line: string): void => void process.stderr.write(`${line}\n`);
  log(
    `fuzz: seed ${seed}, ${count} inputs per target, targets ${targets.join(', ')}${gc ? '' : ' (no --expose-gc: RSS without a forced GC)'}`,
  );
  const started = performance.now();
  const known = process.argv.includes('--skip-known') ? 'skip' : 'send';
  const report = await runFuzz({ seed, count, targets, timeoutMs: 5000, clientEvery: 250, concurrency: 4, known, log });
  const seconds = ((performance.now() - started) / 1000).toFixed(0);
  const line = (f: Finding): string =>
    `- ${f.kind} on ${f.target}, seed ${f.seed}, input #${f.index} (${f.label}): ${f.detail.split('\n').slice(0, 3).join(' ')}${f.preview ? `\n  \`${f.preview.replace(/`/g, "'")}\`` : ''}`;
  const unknown = report.findings.filter((f) => !f.known);
  const findings = unknown.slice(0, 50).map(line);
  if (unknown.length > 50) findings.push(`- … and ${unknown.length - 50} more`);
  const knownLines = KNOWN_ISSUES.map((k) => {
    const hits = report.findings.filter((f) => f.known === k.id);
    const byKind = Object.entries(
      hits.reduce<Record<string, number>>(
        (a, f) => ({ ...a, [`${f.kind} on ${f.target}`]: (a[`${f.kind} on ${f.target}`] ?? 0) + 1 }),
        {},
      ),
    )
      .map(([what, n]) => `${n}× ${what}`)
      .join(', ');
    const first = hits.find((f) => f.index >= 0);
    return `- **${k.id}** — ${k.what}: ${hits.length ? byKind : 'not triggered'}${first ? `; first: seed ${first.seed}, ${first.target} #${first.index}\n  \`${first.preview.replace(/`/g, "'")}\`` : ''}`;
  });
  const md = [
    `# Fuzzing`,
    '',
    `Seed ${seed}, ${count} inputs per target, ${report.targets.reduce((a, f) => a + f.inputs, 0)} in all, ${seconds} s; Node ${process.version}, ${gc ? 'RSS after a forced GC' : 'RSS without a forced GC'} of the one process hosting every server (and the fuzzer).`,
    `Reproduce: \`node --expose-gc --import tsx bench/fuzz.ts --seed ${seed} --count ${count}\`.`,
    '',
    figuresTable(report),
    '',
    '"other": answers without a status (connection closed or reset by the server, e.g. a request line that is not HTTP, a CONNECT) and 1xx/3xx. For the WebSocket bridge, 2xx = an ok answer frame, 4xx = an error frame or the expected close (1009 for a frame over 1 MiB, 1007 for invalid UTF-8), 5xx = an error frame that reads as an internal error, a wrong id or a close 1011.',
    '',
    '## Status histogram',
    '',
    histogram(report),
    '',
    '## Known issues (found by fuzzing, not fixed yet)',
    '',
    known === 'skip'
      ? 'Inputs of these issues were not sent (--skip-known).'
      : 'Their inputs were sent; what they caused is counted in the table (5xx, crashes, hangs) and here.',
    '',
    ...knownLines,
    '',
    "Found by this fuzzer and fixed since (regression-checked by every run): malformed %-escapes in serve's /s/<token>/ path, in /api/sessions/<sid> and in the UI's token cookie (500s, and an uncaught URIError on the UI's WebSocket upgrade), and the request target \"//\" on the proxy (500).",
    '',
    '## Other findings',
    '',
    findings.length
      ? findings.join('\n')
      : 'none: every crash, 5xx and hang above belongs to a known issue; every client check passed.',
    '',
  ].join('\n');
  mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
  writeFileSync(new URL('./results/fuzz.md', import.meta.url), md);
  process.stdout.write(`${md}\n`);
  process.exitCode = unknown.length || !report.finalClientOk ? 1 : 0;
}

main().catch((error: Error) => {
  process.stderr.write(`${error.stack ?? error.message}\n`);
  process.exit(1);
});
