/**
 * Timeline UI benchmark (not a test): is the Timeline smooth with 100,000 exchanges?
 *
 *   npm run build && node --import tsx bench/ui-timeline.ts
 *
 * Starts `mcp-rewind ui --no-open --port 0` (the built browser shell, a temp MCP_REWIND_DATA_DIR), opens it in
 * Chromium (playwright-core; Debian's /usr/bin/chromium where present) at 1280×800 with `&bench` added to the URL.
 * With `?bench` in the page URL, and only then, src/renderer/src/stores/traffic.ts installs `window.__rewindDebug`,
 * whose `ingest(events)` is the store's public `ingestTraffic` — the same path live `traffic` events take. The
 * synthetic TrafficEvents are generated inside the page (no 100k-object CDP transfer) and pushed through it.
 *
 * For 1,000, 20,000 and 100,000 rows (BENCH_UI_SIZES) it measures:
 *   - ingest: from ingest() of all rows to the new count painted, and of one more live exchange on top of them;
 *   - scroll: requestAnimationFrame deltas while the table is scrolled programmatically (600 px per frame) for 3 s;
 *   - filter: from the Tool filter's change event to the "N of M" count painted; free text likewise (its 150 ms
 *     debounce subtracted); both first time (search text cache cold) and again (warm);
 *   - open detail: from a click on a row (detail closed) to the detail pane painted (median of 5);
 *   - ArrowDown: from the keydown on the table to the next row selected and painted, detail open (median, p95 of 30);
 *   - live ingest: 1,000 exchanges/s for 10 s (50 every 50 ms through the store's batching), detail open: long tasks
 *     (PerformanceObserver 'longtask', > 50 ms) counted and the longest;
 *   - a 5 MB response: from the click on its row (Response tab open) to its JSON tree painted.
 * and prints them side by side with the largest / smallest ratio and the issue's target.
 *
 * Before those, BENCH_UI_REAL (20,000; 0: none) real exchanges go through the engine (bench/ui-load.ts: a proxy-only
 * proxy of the UI in front of a minimal upstream) with the page open: the `mcp-rewind ui` process's RSS at rest, with
 * them shown, after a reload of the page (the timeline read again by traffic.page) and its peak meanwhile, and the
 * filters, detail and ArrowDown on those real rows.
 */
import { chromium, type Page } from 'playwright-core';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cannedUpstream, rssMb, sendExchanges, startUi, uiApi, type UiUnderTest } from './ui-load.js';
/** `BENCH_UI_SIZES=1000,20000` measures other sizes; the first is the base of the ratio column, the last its top */
const SIZES = (process.env.BENCH_UI_SIZES ?? '1000,20000,100000').split(',').map(Number);
const SCROLL_MS = 3_000;
const DEBOUNCE_MS = 150; // src/renderer/src/views/timeline/Filters.tsx

/** Generates `n` synthetic exchanges in the page and ingests them; resolves when the count is painted. */
async function load(page: Page, n: number): Promise<number> {
  return page.evaluate(async (n) => {
    const debug = (window as unknown as { __rewindDebug: { ingest(e: unknown[]): void; flush(): void; reset(): void } })
      .__rewindDebug;
    debug.reset();
    await new Promise(requestAnimationFrame);
    const sources = ['upstream', 'upstream', 'cache', 'proxy'];
    const t0 = Date.now() - n * 20;
    const events = Array.from({ length: n }, (_, i) => {
      const tool = `tool-${i % 20}`;
      const isError = i % 37 === 0;
      return {
        proxyId: `p${i % 3}`,
        seq: i + 1,
        method: i % 50 === 0 ? 'tools/list' : 'tools/call',
        tool: i % 50 === 0 ? undefined : tool,
        key: `tools_call_${tool}_${((i * 2654435761) >>> 0).toString(16)}`,
        source: sources[i % 4],
        cassette: 'recorded',
        request: {
          jsonrpc: '2.0',
          id: i + 1,
          method: 'tools/call',
          params: { name: tool, arguments: { query: `q${i}`, n: i } },
        },
        stream:
          i % 10 === 0
            ? [
                {
                  jsonrpc: '2.0',
                  method: 'notifications/progress',
                  params: { progressToken: i, progress: 1, total: 1 },
                },
              ]
            : [],
        response:
          i % 997 === 0
            ? undefined
            : { jsonrpc: '2.0', id: i + 1, result: { content: [{ type: 'text', text: `result ${i}` }], isError } },
        flags: i % 211 === 0 ? ['client reply differed'] : undefined,
        startedAt: t0 + i * 20,
        durationMs: Math.exp(Math.random() * 7),
        bytes: 1_200, // what the engine says such an event weighs (without it the store counts 4 kB: 100,000 would pass its 256 MB cap)
      };
    });
    const start = performance.now();
    debug.ingest(events);
    debug.flush();
    const want = `${n} exchanges`;
    while (document.querySelector('[data-testid="traffic-count"]')?.textContent?.trim() !== want)
      await new Promise(requestAnimationFrame);
    return performance.now() - start;
  }, n);
}

/** one more live exchange on top of the loaded ones: ingest → painted (the steady-state cost of live traffic) */
async function appendOne(page: Page, n: number): Promise<number> {
  return page.evaluate(async (n) => {
    const debug = (window as unknown as { __rewindDebug: { ingest(e: unknown[]): void; flush(): void; reset(): void } })
      .__rewindDebug;
    const times: number[] = [];
    for (let k = 0; k < 5; k++) {
      const seq = 10_000_000 + k;
      const start = performance.now();
      debug.ingest([
        {
          proxyId: 'p0',
          seq,
          method: 'tools/call',
          tool: 'tool-1',
          key: `live-${seq}`,
          source: 'upstream',
          cassette: 'none',
          request: { jsonrpc: '2.0', id: seq, method: 'tools/call' },
          stream: [],
          response: { jsonrpc: '2.0', id: seq, result: {} },
          startedAt: Date.now(),
          durationMs: 3,
          bytes: 900,
        },
      ]);
      debug.flush();
      // at the store's 100,000 cap the count stays and the oldest is dropped instead
      const total = n + k + 1;
      const want = total <= 100_000 ? `${total} exchanges` : `(${total - 100_000} oldest dropped)`;
      while (!document.querySelector('.traffic .toolbar')?.textContent?.includes(want))
        await new Promise(requestAnimationFrame);
      times.push(performance.now() - start);
    }
    return times.sort((a, b) => a - b)[2];
  }, n);
}

async function scrollFrames(page: Page): Promise<number[]> {
  return page.evaluate(async (ms) => {
    const el = document.querySelector<HTMLElement>('[data-testid="timeline-scroll"]')!;
    el.scrollTop = 0;
    await new Promise(requestAnimationFrame);
    const deltas: number[] = [];
    return new Promise<number[]>((resolve) => {
      const end = performance.now() + ms;
      let last = performance.now();
      const step = (now: number): void => {
        deltas.push(now - last);
        last = now;
        el.scrollTop = el.scrollTop + 600 >= el.scrollHeight - el.clientHeight ? 0 : el.scrollTop + 600;
        if (now < end) requestAnimationFrame(step);
        else resolve(deltas.slice(1));
      };
      requestAnimationFrame(step);
    });
  }, SCROLL_MS);
}

/** time from a filter control's event to the "N of M" count painted (ms) */
async function filterTime(page: Page, kind: 'tool' | 'text', value: string): Promise<number> {
  return page.evaluate(
    async ({ kind, value, debounce }) => {
      const count = (): string => document.querySelector('[data-testid="filter-count"]')?.textContent ?? '';
      const before = count();
      const start = performance.now();
      if (kind === 'tool') {
        const select = document.querySelector<HTMLSelectElement>('select[aria-label="Tool"]')!;
        Object.getOwnPropertyDescriptor(HTMLSelectElement.prototype, 'value')!.set!.call(select, value);
        select.dispatchEvent(new Event('change', { bubbles: true }));
      } else {
        const input = document.querySelector<HTMLInputElement>('input[aria-label="Search"]')!;
        Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')!.set!.call(input, value);
        input.dispatchEvent(new Event('input', { bubbles: true }));
      }
      while (count() === before) await new Promise(requestAnimationFrame);
      return performance.now() - start - (kind === 'text' ? debounce : 0);
    },
    { kind, value, debounce: DEBOUNCE_MS },
  );
}

/*
 * "work" = from the event to the new DOM laid out (React's synchronous update for a click or a key, then a forced
 * style + layout): what must fit in one frame. "to paint" adds the wait for the next frame (quantised by vsync).
 */

/** click on a visible row (detail closed) → the detail laid out (work) and painted; medians of 5 (ms) */
async function openDetail(page: Page): Promise<{ work: number; paint: number }> {
  return page.evaluate(async () => {
    const frame = (): Promise<number> => new Promise(requestAnimationFrame);
    const work: number[] = [];
    const paint: number[] = [];
    for (let k = 0; k < 5; k++) {
      document.querySelector<HTMLButtonElement>('button[aria-label="Close detail"]')?.click();
      while (document.querySelector('.tl-detail')) await frame();
      await frame();
      const row = document.querySelectorAll<HTMLElement>('tr.tl-row')[3 + k];
      const start = performance.now();
      row.click();
      await Promise.resolve();
      while (!document.querySelector('.tl-detail-title')) await new Promise((r) => setTimeout(r, 0));
      document.querySelector('.tl-detail')!.getBoundingClientRect();
      work.push(performance.now() - start);
      await frame();
      paint.push(performance.now() - start);
    }
    const mid = (xs: number[]): number => xs.sort((a, b) => a - b)[2];
    return { work: mid(work), paint: mid(paint) };
  });
}

/** ArrowDown on the table with the detail open: keydown → next row selected and laid out (work), painted; 30 presses */
async function arrowDown(page: Page): Promise<{ work: number[]; paint: number[] }> {
  return page.evaluate(async () => {
    const frame = (): Promise<number> => new Promise(requestAnimationFrame);
    const scroller = document.querySelector<HTMLElement>('[data-testid="timeline-scroll"]')!;
    scroller.focus();
    const work: number[] = [];
    const paint: number[] = [];
    for (let k = 0; k < 30; k++) {
      const before = document.querySelector('tr[aria-selected="true"]')?.getAttribute('data-index');
      const start = performance.now();
      scroller.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowDown', bubbles: true }));
      await Promise.resolve();
      while (document.querySelector('tr[aria-selected="true"]')?.getAttribute('data-index') === before)
        await new Promise((r) => setTimeout(r, 0));
      document.querySelector('.tl-detail')!.getBoundingClientRect();
      work.push(performance.now() - start);
      await frame();
      paint.push(performance.now() - start);
      await frame();
    }
    return { work, paint };
  });
}

/** 1,000 exchanges/s for `ms` through the store's public ingest path; long tasks (> 50 ms) seen meanwhile */
async function liveIngest(page: Page, ms: number): Promise<{ longTasks: number; longest: number; ingested: number }> {
  return page.evaluate(async (ms) => {
    const debug = (window as unknown as { __rewindDebug: { ingest(e: unknown[]): void } }).__rewindDebug;
    const tasks: number[] = [];
    const observer = new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) tasks.push(entry.duration);
    });
    observer.observe({ type: 'longtask', buffered: false });
    let seq = 20_000_000;
    let ingested = 0;
    const end = performance.now() + ms;
    await new Promise<void>((done) => {
      const tick = (): void => {
        const batch = Array.from({ length: 50 }, () => {
          seq++;
          return {
            proxyId: 'p1',
            seq,
            method: 'tools/call',
            tool: `tool-${seq % 20}`,
            key: `live-${seq}`,
            source: 'upstream',
            cassette: 'none',
            request: {
              jsonrpc: '2.0',
              id: seq,
              method: 'tools/call',
              params: { name: `tool-${seq % 20}`, arguments: { q: seq } },
            },
            stream: [],
            response: { jsonrpc: '2.0', id: seq, result: { content: [{ type: 'text', text: `live ${seq}` }] } },
            startedAt: Date.now(),
            durationMs: 2,
            bytes: 1_000,
          };
        });
        debug.ingest(batch);
        ingested += batch.length;
        if (performance.now() < end) setTimeout(tick, 50);
        else setTimeout(done, 200);
      };
      tick();
    });
    observer.disconnect();
    return { longTasks: tasks.filter((t) => t > 50).length, longest: Math.max(0, ...tasks), ingested };
  }, ms);
}

/** a 5 MB response: ingested, then its row clicked with the Response tab open → the JSON tree painted (ms) */
async function bigResponse(page: Page): Promise<number> {
  await page.getByRole('complementary', { name: 'Exchange detail' }).getByRole('tab', { name: 'Response' }).click();
  return page.evaluate(async () => {
    const frame = (): Promise<number> => new Promise(requestAnimationFrame);
    const debug = (window as unknown as { __rewindDebug: { ingest(e: unknown[]): void; flush(): void } }).__rewindDebug;
    const items = Array.from({ length: 25_000 }, (_, i) => ({
      id: i,
      name: `item ${i}`,
      tags: ['alpha', 'beta'],
      payload: 'x'.repeat(150),
    }));
    const seq = 30_000_000;
    debug.ingest([
      {
        proxyId: 'p1',
        seq,
        method: 'tools/call',
        tool: 'big-result',
        key: 'big',
        source: 'upstream',
        cassette: 'none',
        request: { jsonrpc: '2.0', id: seq, method: 'tools/call', params: { name: 'big-result' } },
        stream: [],
        response: {
          jsonrpc: '2.0',
          id: seq,
          result: { content: [{ type: 'text', text: 'big' }], structuredContent: { items } },
        },
        startedAt: Date.now(),
        durationMs: 40,
      },
    ]);
    debug.flush();
    const scroller = document.querySelector<HTMLElement>('[data-testid="timeline-scroll"]')!;
    let row: HTMLElement | undefined;
    while (!row) {
      scroller.scrollTop = scroller.scrollHeight;
      await frame();
      row = Array.from(document.querySelectorAll<HTMLElement>('tr.tl-row')).find((tr) =>
        tr.textContent?.includes('big-result'),
      );
    }
    const start = performance.now();
    row.click();
    while (
      !Array.from(document.querySelectorAll('.json-rows [role="treeitem"]')).some((el) =>
        el.textContent?.includes('25000 items'),
      )
    ) {
      await frame();
      document.querySelector<HTMLButtonElement>('#detail-tab-response')?.click();
    }
    await frame();
    return performance.now() - start;
  });
}

async function resetFilters(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Reset filters' }).click();
  await page
    .getByTestId('filter-count')
    .filter({ hasText: /^(\d+) of \1$/ })
    .waitFor();
}

const pct = (xs: number[], p: number): number =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length - 1) * p))];

/** the Timeline's count once it shows `n` exchanges */
async function countShown(page: Page, n: number): Promise<void> {
  await page.waitForFunction(
    (want) => document.querySelector('[data-testid="traffic-count"]')?.textContent?.trim() === want,
    `${n} exchanges`,
    { timeout: 600_000, polling: 100 },
  );
}
// (the synthetic rows below replace these in the page's store; the engine keeps them)

/** filters, detail and ArrowDown on the rows shown (ms): tool filter, text search (twice each), detail, keys */
async function interactions(page: Page, texts: [string, string]): Promise<number[]> {
  const toolCold = await filterTime(page, 'tool', 'tool-7');
  await resetFilters(page);
  const toolWarm = await filterTime(page, 'tool', 'tool-7');
  await resetFilters(page);
  const textCold = await filterTime(page, 'text', texts[0]);
  await resetFilters(page);
  const textWarm = await filterTime(page, 'text', texts[1]);
  await resetFilters(page);
  const detail = await openDetail(page);
  const keys = await arrowDown(page);
  return [toolCold, toolWarm, textCold, textWarm, detail.work, detail.paint, pct(keys.work, 0.5), pct(keys.work, 0.95)];
}

/** the UI process's resident memory once it settles (no change over 1 s, at most 10 s) */
async function settledRss(pid: number): Promise<number> {
  let last = rssMb(pid);
  for (let i = 0; i < 10; i++) {
    await new Promise((r) => setTimeout(r, 1000));
    const now = rssMb(pid);
    if (Math.abs(now - last) < 1) return now;
    last = now;
  }
  return last;
}

/**
 * Real exchanges through the engine (a proxy-only proxy of the UI in front of a minimal upstream), shown live in the
 * page: the `mcp-rewind ui` process's RSS at rest, with them, and after a reload of the page (the timeline read again
 * page by page: its peak meanwhile too); and the interactions on those rows.
 */
async function realTraffic(page: Page, ui: UiUnderTest, n: number): Promise<{ memory: number[]; rows: number[] }> {
  const rest = await settledRss(ui.pid);
  const api = await uiApi(ui);
  const upstream = await cannedUpstream();
  try {
    await sendExchanges(api, upstream.url, n);
    await countShown(page, n + 1); // and the proxy's initialize
    const loaded = await settledRss(ui.pid);
    let peak = 0;
    const sampler = setInterval(() => (peak = Math.max(peak, rssMb(ui.pid))), 50);
    const start = performance.now();
    await page.reload();
    await countShown(page, n + 1);
    const reloadMs = performance.now() - start;
    clearInterval(sampler);
    const reloaded = await settledRss(ui.pid);
    await page.getByRole('region', { name: 'Traffic' }).evaluate((el) => el.scrollIntoView({ block: 'start' }));
    const rows = await interactions(page, ['report 4242', 'report 4243']);
    await page.getByRole('button', { name: 'Close detail' }).click();
    return { memory: [rest, loaded, reloaded, Math.max(peak, reloaded), reloadMs], rows };
  } finally {
    api.close();
    await upstream.close();
  }
}

function printRealTraffic(n: number, real: { memory: number[]; rows: number[] }): void {
  const [rest, loaded, reloaded, peak, reloadMs] = real.memory;
  console.log(`
The \`mcp-rewind ui\` process (engine + web shell), ${n.toLocaleString('en')} real exchanges\n`);
  console.log('| measure | figure | target |\n|---|---:|---:|');
  console.log(`| RSS at rest, page open, no exchange (MB) | ${rest.toFixed(0)} | ≤ 100 |`);
  console.log(`| RSS with ${n.toLocaleString('en')} exchanges shown (MB) | ${loaded.toFixed(0)} | ≤ 200 |`);
  console.log(`| RSS after a reload of the page (MB) | ${reloaded.toFixed(0)} | ≤ 200 |`);
  console.log(`| RSS peak during the reload (MB) | ${peak.toFixed(0)} | |`);
  console.log(`| reload → all ${n.toLocaleString('en')} rows shown (ms) | ${reloadMs.toFixed(0)} | |`);
  const labels = ['tool filter, first', 'tool filter, again', 'text search, cold', 'text search, warm'];
  labels.forEach((label, i) => console.log(`| ${label}, these rows (ms) | ${real.rows[i].toFixed(1)} | < 100 |`));
  console.log(`| open detail: work / to paint (ms) | ${real.rows[4].toFixed(1)} / ${real.rows[5].toFixed(1)} | < 50 |`);
  console.log(`| ArrowDown: work median / p95 (ms) | ${real.rows[6].toFixed(1)} / ${real.rows[7].toFixed(1)} | < 16 |`);
}

/** `BENCH_UI_REAL=0` leaves out the real-traffic section (its size: BENCH_UI_REAL=20000 by default) */
const REAL = Number(process.env.BENCH_UI_REAL ?? 20_000);

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'rewind-bench-ui-'));
  const ui = await startUi(dataDir);
  const executablePath = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));
  const browser = await chromium.launch({ executablePath, args: ['--no-sandbox', '--disable-gpu'] });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    // tsx (esbuild, keepNames) wraps the named functions of the page.evaluate callbacks in __name(): define it there
    await page.addInitScript('globalThis.__name = (f) => f');
    await page.goto(`${ui.url}&bench`);
    await page.waitForFunction(() => '__rewindDebug' in window);
    await page.getByRole('status').filter({ hasText: 'connected' }).waitFor();
    const real = REAL > 0 ? await realTraffic(page, ui, REAL) : undefined;
    if (real) console.error(`${REAL} real exchanges measured`);
    const rows: Record<string, number[]> = {};
    for (const n of SIZES) {
      const ingest = await load(page, n);
      const live = await appendOne(page, n);
      await page.getByRole('region', { name: 'Traffic' }).evaluate((el) => el.scrollIntoView({ block: 'start' }));
      const frames = await scrollFrames(page);
      const toolCold = await filterTime(page, 'tool', 'tool-7');
      await resetFilters(page);
      const toolWarm = await filterTime(page, 'tool', 'tool-7');
      await resetFilters(page);
      const textCold = await filterTime(page, 'text', 'q4242');
      await resetFilters(page);
      const textWarm = await filterTime(page, 'text', 'q4243');
      await resetFilters(page);
      const detail = await openDetail(page);
      const keys = await arrowDown(page);
      const live10 = await liveIngest(page, 10_000);
      const big = await bigResponse(page);
      await page.getByRole('button', { name: 'Close detail' }).click();
      rows[n] = [
        ingest,
        live,
        pct(frames, 0.5),
        pct(frames, 0.95),
        Math.max(...frames),
        frames.length,
        toolCold,
        toolWarm,
        textCold,
        textWarm,
        detail.work,
        detail.paint,
        pct(keys.work, 0.5),
        pct(keys.work, 0.95),
        pct(keys.paint, 0.5),
        live10.longTasks,
        live10.longest,
        big,
      ];
      console.error(`${n} rows measured`);
    }
    const labels: Array<[string, string]> = [
      ['ingest all → painted (ms)', ''],
      ['one more live exchange → painted, median of 5 (ms)', ''],
      ['scroll frame median (ms)', ''],
      ['scroll frame p95 (ms)', '≤ one frame'],
      ['scroll frame max (ms)', ''],
      ['frames in 3 s', ''],
      ['tool filter, first (ms)', '< 100'],
      ['tool filter, again (ms)', '< 100'],
      ['text search, cold cache (ms)', '< 100'],
      ['text search, warm (ms)', '< 100'],
      ['open an exchange’s detail: work, median of 5 (ms)', '< 50'],
      ['open an exchange’s detail: to paint (ms)', ''],
      ['ArrowDown to the next row, detail open: work, median (ms)', '< 16'],
      ['ArrowDown: work, p95 of 30 (ms)', '< 16'],
      ['ArrowDown: to paint, median (ms)', ''],
      ['live 1,000/s for 10 s: long tasks > 50 ms', '0'],
      ['live 1,000/s for 10 s: longest long task (ms; 0 = none over 50)', '< 50'],
      ['a 5 MB response: click → JSON tree painted (ms)', '< 300'],
    ];
    const a = SIZES[0];
    const b = SIZES[SIZES.length - 1];
    console.log(`\nTimeline UI, Chromium ${browser.version()}, 1280×800\n`);
    console.log(`| measure | ${SIZES.map((n) => `${n.toLocaleString('en')} rows`).join(' | ')} | ratio | target |`);
    console.log(`|---|${SIZES.map(() => '---:|').join('')}---:|---:|`);
    labels.forEach(([label, target], i) =>
      console.log(
        `| ${label} | ${SIZES.map((n) => rows[n][i].toFixed(1)).join(' | ')} | ${rows[a][i] ? `${(rows[b][i] / rows[a][i]).toFixed(2)}×` : '—'} | ${target} |`,
      ),
    );
    if (real) printRealTraffic(REAL, real);
  } finally {
    await browser.close();
    await ui.stop(); // the UI writes its state as it stops: remove its folder once it has
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
