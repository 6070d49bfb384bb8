import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Annotation, SourceInfo, TrafficEvent } from '../../src/shared/api.js';
import { apiOf, startUiProcess, type UiProcess } from '../helpers/ui-process.js';
import { removeTempDirs, tempDir } from '../helpers/temp.js';

// Files opened into the timeline are opened again at the next start, one after the other. A stop (SIGTERM) in the
// middle of that used to rewrite timeline.json from what was open so far: 4 files open → 1 kept, their pins gone.
// `mcp-rewind ui` as a real process, stopped while it reopens four HAR files, then started again.

const uis: UiProcess[] = [];
afterEach(async () => {
  for (const ui of uis.splice(0)) await ui.stop();
  await removeTempDirs();
});

/** A HAR file of `n` tools/call exchanges, large enough that reopening it takes a while. */
function har(file: string, n: number, tag: string): string {
  const entries = Array.from({ length: n }, (_, i) => ({
    startedDateTime: new Date(1_700_000_000_000 + i).toISOString(),
    time: 1,
    request: {
      method: 'POST',
      url: 'http://127.0.0.1:3000/mcp',
      headers: [{ name: 'content-type', value: 'application/json' }],
      postData: {
        mimeType: 'application/json',
        text: JSON.stringify({
          jsonrpc: '2.0',
          id: i,
          method: 'tools/call',
          params: { name: 'echo', arguments: { text: `${tag} ${i}`, pad: 'x'.repeat(200) } },
        }),
      },
    },
    response: {
      status: 200,
      headers: [{ name: 'content-type', value: 'application/json' }],
      content: {
        mimeType: 'application/json',
        text: JSON.stringify({ jsonrpc: '2.0', id: i, result: { content: [{ type: 'text', text: `${tag} ${i}` }] } }),
      },
    },
  }));
  writeFileSync(file, JSON.stringify({ log: { version: '1.2', creator: { name: 'test', version: '1' }, entries } }));
  return file;
}

async function until<T>(read: () => Promise<T | undefined>, what: string, ms = 30_000): Promise<T> {
  for (const deadline = Date.now() + ms; ;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('stopping the UI while it reopens files', () => {
  it('SIGTERM while 4 files are being reopened: the next start has all 4 files and their pins', async () => {
    const dataDir = await tempDir('rewind-ui-data-');
    const files = await tempDir('rewind-hars-');
    const paths = ['a', 'b', 'c', 'd'].map((tag) => har(join(files, `${tag}.har`), 6_000, tag));

    // a first run: open the four files, pin one exchange of each
    let ui = await startUiProcess(dataDir, { args: ['--no-open'] });
    uis.push(ui);
    let api = await apiOf(ui.origin, ui.token());
    for (const path of paths) await api.call('sources.open', { path });
    const snapshot = await api.call<TrafficEvent[]>('traffic.snapshot', {});
    const sources = await api.call<SourceInfo[]>('sources.list');
    const pinned = sources.map((s, i) => snapshot.filter((e) => e.proxyId === s.id)[100 * (i + 1)].seq);
    for (const seq of pinned) await api.call('traffic.annotate', { seq, pinned: true, note: `pin ${seq}` });
    api.close();
    await ui.stop();
    const saved = JSON.parse(readFileSync(join(dataDir, 'timeline.json'), 'utf8')) as {
      sources: unknown[];
      kept: unknown[];
    };
    expect([saved.sources.length, saved.kept.length]).toEqual([4, 4]);

    // the second run is stopped as soon as it has reopened some of them, not all
    ui = await startUiProcess(dataDir, { args: ['--no-open'] });
    uis.push(ui);
    api = await apiOf(ui.origin, ui.token());
    const partly = await until(async () => {
      const n = (await api.call<SourceInfo[]>('sources.list')).length;
      return n >= 1 ? n : undefined;
    }, 'the first file reopened');
    ui.child.kill('SIGTERM');
    await ui.exited;
    const kept = JSON.parse(readFileSync(join(dataDir, 'timeline.json'), 'utf8')) as {
      sources: unknown[];
      kept: unknown[];
    };
    console.log(
      `stopped with ${partly} of 4 files reopened: timeline.json keeps ${kept.sources.length} files, ${kept.kept.length} pins`,
    );
    expect(partly, 'stopped in the middle of the restore (the files reopen one by one)').toBeLessThan(4);

    // the third run: every file and every pin is back
    ui = await startUiProcess(dataDir, { args: ['--no-open'] });
    uis.push(ui);
    api = await apiOf(ui.origin, ui.token());
    const reopened = await until(async () => {
      const list = await api.call<SourceInfo[]>('sources.list');
      return list.length === 4 ? list : undefined;
    }, 'all four files reopened');
    expect(reopened.map((s) => s.path).sort()).toEqual([...paths].sort());
    const marks = await until(async () => {
      const all = await api.call<Record<number, Annotation>>('traffic.annotations');
      return Object.keys(all).length === 4 ? all : undefined;
    }, 'the four pins');
    expect(Object.keys(marks).map(Number).sort()).toEqual([...pinned].sort());
    for (const seq of pinned) expect(marks[seq]).toEqual({ pinned: true, note: `pin ${seq}` });
    api.close();
  }, 120_000);
});
