/** Statistics and the markdown summary (printed and written to bench/results/latest.md). */
import { mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';

export const median = (values: number[]): number => {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (!sorted.length) return NaN;
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

const fmt = (v: number, digits = 0): string => (Number.isFinite(v) ? v.toFixed(digits) : 'n/a');

export interface ThroughputRow {
  name: string;
  rps: number[];
  p50Ms: number[];
  p99Ms: number[];
  errors: number;
  /** CPU milliseconds per process (loader, server, proxy, upstream) over all throughput rounds */
  cpuMs: Map<string, number>;
  requests: number;
}

/** CPU microseconds per request of one process over the throughput rounds. */
export const cpuPerRequest = (row: ThroughputRow, label: string): number =>
  ((row.cpuMs.get(label) ?? NaN) * 1000) / row.requests;

export interface LatencyRow {
  name: string;
  p50Ms: number[];
  p99Ms: number[];
}

export interface TargetRow {
  metric: string;
  /** per-round paired values (ratio, or added ms); the median is reported */
  values: number[];
  /** undefined: informational */
  target?: number;
  /** 'min': value must be >= target; 'max': value must be <= target */
  kind: 'min' | 'max';
  unit: 'x' | 'ms';
  /** why this ratio is not reported (a peer failed its answer checks or erred in its rounds: peer-check.ts) */
  void?: string;
}

export function summary(
  config: string,
  throughput: ThroughputRow[],
  latency: LatencyRow[],
  targets: TargetRow[],
): string {
  const lines: string[] = [];
  lines.push(`# mcp-rewind bench — ${new Date().toISOString()}`, '');
  const load = os
    .loadavg()
    .map((v) => v.toFixed(1))
    .join(' / ');
  lines.push(
    `node ${process.version}, ${os.cpus().length} cores (${os.cpus()[0]?.model ?? '?'}), load average ${load} (1 / 5 / 15 min, at the end), ${config}`,
    '',
  );
  lines.push('## Targets (median of per-round paired ratios / differences)', '');
  lines.push('| metric | value | min–max over rounds | target | met |', '|---|---:|---:|---:|:---:|');
  for (const t of targets) {
    if (t.void !== undefined) {
      lines.push(
        `| ${t.metric} | **void** | ${t.void} | ${t.target === undefined ? '(info)' : ''} | ${t.target === undefined ? '' : '**NO**'} |`,
      );
      continue;
    }
    const value = median(t.values);
    const digits = 3;
    const range =
      t.values.length > 1 ? `${fmt(Math.min(...t.values), digits)}–${fmt(Math.max(...t.values), digits)}` : '';
    if (t.target === undefined) {
      lines.push(`| ${t.metric} | ${fmt(value, digits)} ${t.unit} | ${range} | (info) | |`);
      continue;
    }
    const met = Number.isFinite(value) && (t.kind === 'min' ? value >= t.target : value <= t.target);
    lines.push(
      `| ${t.metric} | ${fmt(value, digits)} ${t.unit} | ${range} | ${t.kind === 'min' ? '>=' : '<='} ${t.target} ${t.unit} | ${met ? 'yes' : '**NO**'} |`,
    );
  }
  lines.push(
    '',
    'Throughput ratios near 1 mean the load generator (one process, one core) was the limit, not the server: then the server CPU/request rows are the better comparison.',
  );
  const failed = throughput.reduce((n, r) => n + r.errors, 0);
  if (failed)
    lines.push(
      '',
      `**WARNING: ${failed} requests failed (HTTP error, transport error or JSON-RPC error such as a replay miss); see the errors column.**`,
    );
  lines.push('', '## Throughput (closed loop, fixed concurrency; medians over rounds)', '');
  lines.push(
    '| server | req/s | min–max req/s | p50 ms | p99 ms | errors | CPU µs/request |',
    '|---|---:|---:|---:|---:|---:|---|',
  );
  for (const r of throughput) {
    const cpu = [...r.cpuMs.keys()].map((label) => `${label} ${fmt(cpuPerRequest(r, label))}`).join(', ');
    lines.push(
      `| ${r.name} | ${fmt(median(r.rps))} | ${fmt(Math.min(...r.rps))}–${fmt(Math.max(...r.rps))} | ${fmt(median(r.p50Ms), 2)} | ${fmt(median(r.p99Ms), 2)} | ${r.errors} | ${cpu} |`,
    );
  }
  lines.push(
    '',
    'CPU µs/request: user+system CPU time of each process (all threads) over all throughput rounds ÷ requests completed. With 2 cores the loader can be the bottleneck, so the server-side CPU cost is the steadier comparison.',
  );
  if (!latency.length) return lines.join('\n') + '\n'; // a bench without latency rounds prints no empty table
  lines.push('', '## Latency (1 connection, sequential requests; medians over rounds)', '');
  lines.push('| server | p50 ms | p99 ms |', '|---|---:|---:|');
  for (const r of latency) lines.push(`| ${r.name} | ${fmt(median(r.p50Ms), 3)} | ${fmt(median(r.p99Ms), 3)} |`);
  return lines.join('\n') + '\n';
}

export async function save(markdown: string, name = 'latest.md'): Promise<string> {
  const dir = new URL('./results/', import.meta.url);
  await mkdir(dir, { recursive: true });
  const file = new URL(name, dir);
  await writeFile(file, markdown);
  return file.pathname;
}
