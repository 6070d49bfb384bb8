import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CommandOutputs, SourceInfo } from '../../src/shared/api.js';
import { keyFor } from '../../src/main/engine/cassette/keys.js';
import { SINGLE_FILE_FORMAT } from '../../src/main/engine/cassette/persist/single-file.js';
import { HAS_PROCFS } from '../helpers/procfs.js';
import { skipping } from '../helpers/skip.js';
import { apiOf, startUiProcess, type UiProcess } from '../helpers/ui-process.js';
import { removeTempDirs, tempDir } from '../helpers/temp.js';

// A full timeline (the 100,000 exchanges `mcp-rewind ui` says it holds) loaded over the real WebSocket API of a real
// process. One traffic.snapshot answer of it used to be built whole (75,001 exchanges: no answer within 110 s, the
// process at 1.3 GB, app.info unanswered): now traffic.snapshot refuses with what to do instead, and traffic.page
// reads the timeline a page at a time — complete, with app.info answered between the pages, memory bounded.

const CAPACITY = 100_000;
let ui: UiProcess | undefined;
afterEach(async () => {
  await ui?.stop();
  ui = undefined;
  await removeTempDirs();
});

/** a single-file cassette of `n` recorded tools/call, each answer distinct (~0.5 kB of JSON each) */
function writeCassette(file: string, n: number): void {
  const entries = Array.from({ length: n }, (_, i) => {
    const args = { query: `quarterly revenue report ${i}`, limit: 10 };
    const key = keyFor({ method: 'tools/call', params: { name: 'search', arguments: args } });
    const text = `Result ${i}: revenue grew 12% quarter over quarter, driven by subscriptions; churn fell to 2.1%.`;
    return {
      n: i + 1,
      key,
      entry: { arguments: args, result: { content: [{ type: 'text', text }] }, recordedAt: new Date(i).toISOString() },
    };
  });
  writeFileSync(file, JSON.stringify({ format: SINGLE_FILE_FORMAT, version: 1, exportedAt: '', entries }));
}

/** resident memory (MB) from /proc, sampled every 50 ms until stopped: its peak */
function rssSampler(pid: number): { peak(): number; stop(): void } {
  const read = (): number => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
  let peak = read();
  const timer = setInterval(() => (peak = Math.max(peak, read())), 50);
  return { peak: () => Math.max(peak, read()), stop: () => clearInterval(timer) };
}

describe.skipIf(skipping(!HAS_PROCFS && 'the process memory is read in /proc (Linux)', 'the timeline in pages'))(
  'a full timeline over the UI API of a real process',
  () => {
    it('is read in complete pages while app.info keeps answering, memory bounded; one snapshot is refused', async () => {
      const dir = await tempDir('rewind-pages-');
      const file = join(dir, 'full.json');
      writeCassette(file, CAPACITY);
      ui = await startUiProcess(join(dir, 'data'));
      const api = await apiOf(ui.origin, ui.token());
      try {
        const source = await api.call<SourceInfo>('sources.open', { path: file });
        expect(source.exchanges).toBe(CAPACITY);

        // one answer of 100,000 exchanges: refused at once, saying what to use
        await expect(api.call('traffic.snapshot', {})).rejects.toThrow(/100,000 exchanges .* traffic\.page/);

        const memory = rssSampler(ui.pid);
        const before = memory.peak();
        const seqs: number[] = [];
        let pages = 0;
        let answeredBetween = 0;
        let after: number | undefined;
        for (;;) {
          const page = api.call<CommandOutputs['traffic.page']>('traffic.page', after === undefined ? {} : { after });
          // asked after this page: answered before the next one is even asked for
          const info = api.call<CommandOutputs['app.info']>('app.info');
          const { events, total, next } = await page;
          expect((await info).trafficCapacity).toBe(CAPACITY);
          if (pages > 0 && next !== undefined) answeredBetween++;
          expect(total).toBe(CAPACITY);
          for (const e of events) seqs.push(e.seq);
          pages++;
          if (next === undefined) break;
          after = next;
        }
        memory.stop();
        expect(seqs).toHaveLength(CAPACITY);
        expect(new Set(seqs).size).toBe(CAPACITY);
        expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
        expect(pages).toBeGreaterThan(10);
        expect(answeredBetween).toBeGreaterThan(0);
        // generous: one page is about 1 MB; the single answer of 75,001 used to take the process past 1.2 GB
        const grew = memory.peak() - before;
        console.log(`traffic.page: ${pages} pages; RSS ${before.toFixed(0)} MB before, +${grew.toFixed(0)} MB at peak`);
        expect(grew).toBeLessThan(200);
      } finally {
        api.close();
      }
    }, 240_000);
  },
);
