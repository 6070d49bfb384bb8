/** The scale bench's markdown: sizes side by side, exports, record with and without fsync. */
import os from 'node:os';
import { median } from './report.js';

export interface SizeRow {
  size: number;
  portMs: number;
  indexedMs: number;
  rssMb: number;
  coldHitRps: number;
  hitRps: number;
  missRps: number;
  getRps: number;
  hitP50: number;
  hitP50Hits: number;
  hitP50Storm: number;
  stormRps: number;
  errors: number;
}

export interface ExportRow {
  what: string;
  /** V8's heap limit it ran with (--max-old-space-size), if any */
  heapMb?: number;
  seconds: number;
  peakRssMb: number;
  jsonMb: number;
  harMb: number;
  ok: boolean;
}

export interface RecordRow {
  durable: boolean;
  p50: number[];
  p99: number[];
  rps: number[];
}

const fmt = (v: number, digits = 0): string =>
  Number.isFinite(v) ? v.toLocaleString('en', { minimumFractionDigits: digits, maximumFractionDigits: digits }) : 'n/a';

export function scaleSummary(config: string, rows: SizeRow[], exports: ExportRow[], record: RecordRow[]): string {
  const lines: string[] = [
    `# mcp-rewind bench: scale — ${new Date().toISOString()}`,
    '',
    `node ${process.version}, ${os.cpus().length} cores (${os.cpus()[0]?.model ?? '?'}), ${config}`,
    '',
  ];
  const col = (label: string, cell: (r: SizeRow) => string): string => `| ${label} | ${rows.map(cell).join(' | ')} |`;
  lines.push('## Replay, by cassette size', '');
  lines.push(
    `| | ${rows.map((r) => `${fmt(r.size)} entries`).join(' | ')} |`,
    `|---|${rows.map(() => '---:').join('|')}|`,
  );
  lines.push(col('port answers after (ms from spawn)', (r) => fmt(r.portMs)));
  lines.push(col('fully indexed after (ms from spawn)', (r) => fmt(r.indexedMs)));
  lines.push(col('RSS once indexed (MB)', (r) => fmt(r.rssMb)));
  lines.push(
    col('RSS per entry, from the size before (bytes)', (r) => {
      const before = rows[rows.indexOf(r) - 1];
      return before ? fmt(((r.rssMb - before.rssMb) * 1024 * 1024) / (r.size - before.size)) : '';
    }),
  );
  lines.push(col('hits/s, first use of each key (read from disk)', (r) => fmt(r.coldHitRps)));
  lines.push(col('hits/s, warm', (r) => fmt(r.hitRps)));
  lines.push(col('misses/s', (r) => fmt(r.missRps)));
  lines.push(col('GET /mcp per s', (r) => fmt(r.getRps)));
  lines.push(col('hit p50 alone (ms, 1 connection)', (r) => fmt(r.hitP50, 2)));
  lines.push(col('hit p50 while 4 clients × 8 connections send hits (ms)', (r) => fmt(r.hitP50Hits, 2)));
  lines.push(col('hit p50 while they send misses instead: a miss storm (ms)', (r) => fmt(r.hitP50Storm, 2)));
  lines.push(col('misses/s of that storm', (r) => fmt(r.stormRps)));
  lines.push(col('failed hits', (r) => fmt(r.errors)));
  lines.push(
    '',
    'Hits rotate over keys spread across the whole cassette; "first use" reads each entry from its file (the index holds names only), "warm" serves them from the bounded cache. Misses find the keys they name in a per-tool index; GET answers 405 (nothing recorded to push).',
    '',
  );
  lines.push('## Export (`mcp-rewind export --out --har`, streamed)', '');
  lines.push(
    '| cassette | V8 heap | time (s) | peak RSS (MB) | single file (MB) | HAR (MB) | ok |',
    '|---|---|---:|---:|---:|---:|:---:|',
  );
  for (const e of exports)
    lines.push(
      `| ${e.what} | ${e.heapMb ? `limited to ${e.heapMb} MB` : 'as V8 likes'} | ${fmt(e.seconds, 1)} | ${fmt(e.peakRssMb)} | ${fmt(e.jsonMb)} | ${fmt(e.harMb)} | ${e.ok ? 'yes' : '**NO**'} |`,
    );
  lines.push(
    '',
    'Left alone, V8 lets a busy heap grow long before it collects; with the heap limited, the same export completes: what it holds does not grow with the cassette (the names of its entries aside, ~200 bytes each).',
  );
  lines.push(
    '',
    '## Record: the answer waits for the entry to be on disk (fsync of file and folder) — or not (`--no-fsync`)',
    '',
  );
  lines.push('| | p50 (ms, 1 connection) | p99 (ms) | req/s (32 connections) |', '|---|---:|---:|---:|');
  for (const r of record)
    lines.push(
      `| ${r.durable ? 'durable (default)' : '--no-fsync'} | ${fmt(median(r.p50), 3)} | ${fmt(median(r.p99), 3)} | ${fmt(median(r.rps))} |`,
    );
  const [on, off] = record;
  if (on && off)
    lines.push(
      '',
      `Added by durability: ${fmt(median(on.p50) - median(off.p50), 3)} ms at p50 (medians of ${on.p50.length} interleaved rounds; every call records a new entry).`,
    );
  return lines.join('\n') + '\n';
}
