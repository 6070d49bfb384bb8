/**
 * The cassette at scale: indexed by name and read on first use, replay's loose keys read by worker threads (a folder
 * big enough for them; the built engine in dist/: `npm run build:cli` first), entries that are links or broken refused there too, misses named from a per-tool index, a
 * bounded cache, exports streamed as the same text as the whole document, and answers released only once recorded.
 */
import { existsSync, symlinkSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { WORKER_THRESHOLD } from '../../src/main/engine/cassette/content-index.js';
import type * as StoreModule from '../../src/main/engine/cassette/store.js';
import {
  exportHar,
  exportSingleFile,
  writeHarExport,
  writeSingleFileExport,
} from '../../src/main/engine/cassette/export.js';
import { keyFor, looseKeyFor } from '../../src/main/engine/cassette/keys.js';
import { CassetteStore } from '../../src/main/engine/cassette/store.js';
import { startProxy } from '../../src/main/engine/proxy.js';
import { connectClient } from '../fixtures/client.js';
import { startSdkServer } from '../fixtures/sdk-server.js';
import { keeper } from '../helpers/keep.js';
import { removeTempDirs, tempDir } from '../helpers/temp.js';

const { keep, closeAll } = keeper();
afterEach(async () => {
  await closeAll();
  await removeTempDirs();
});

const call = (name: string, args: Record<string, unknown>) => ({
  method: 'tools/call',
  params: { name, arguments: args },
});

/** `count` recorded calls of tool `search` (arguments `{ q, page }`), numbered from 2, and `1 initialize.json`. */
async function bigCassette(count: number): Promise<string> {
  const dir = await tempDir('rewind-big-');
  await writeFile(
    join(dir, '1 initialize.json'),
    JSON.stringify({ protocolVersion: '2025-06-18', capabilities: {}, serverInfo: { name: 'big', version: '1' } }),
  );
  for (let start = 0; start < count; start += 512) {
    await Promise.all(
      Array.from({ length: Math.min(512, count - start) }, (_, k) => {
        const i = start + k;
        const args = { q: `query ${i}`, page: i % 7 };
        return writeFile(
          join(dir, `${i + 2} ${keyFor(call('search', args))}.json`),
          JSON.stringify({
            name: 'search',
            arguments: args,
            result: { content: [{ type: 'text', text: `result ${i}` }] },
          }),
        );
      }),
    );
  }
  return dir;
}

describe('a cassette large enough for the worker threads', () => {
  it('indexes every entry, loose keys included; links and broken files are refused with a warning naming them', async () => {
    const count = WORKER_THRESHOLD + 500;
    const dir = await bigCassette(count);
    const outside = await tempDir('rewind-outside-');
    await writeFile(
      join(outside, 'secret.json'),
      JSON.stringify({
        name: 'search',
        arguments: { q: 'secret' },
        result: { content: [{ type: 'text', text: 'SECRET' }] },
      }),
    );
    const linked = `${count + 2} ${keyFor(call('search', { q: 'secret' }))}.json`;
    symlinkSync(join(outside, 'secret.json'), join(dir, linked));
    const broken = `${count + 3} ${keyFor(call('search', { q: 'broken' }))}.json`;
    await writeFile(join(dir, broken), '{"name": "search", "argu');
    // what a miss asks of the index: a method the server did not have, a requestState an answer issued
    const notFound = keyFor({ method: 'resources/read', params: { uri: 'x://y' } });
    await writeFile(
      join(dir, `${count + 4} ${notFound}.json`),
      JSON.stringify({
        $rewind: 1,
        method: 'resources/read',
        params: { uri: 'x://y' },
        error: { code: -32601, message: 'Method not found' },
      }),
    );
    await writeFile(
      join(dir, `${count + 5} ${keyFor(call('ask', {}))}.json`),
      JSON.stringify({ name: 'ask', arguments: {}, result: { resultType: 'input_required', requestState: 'state-1' } }),
    );
    const lines: string[] = [];
    // the worker threads run the built engine (dist/, as shipped): run from the sources, the store reads the files itself
    const built = (await import(
      new URL('../../dist/main/engine/cassette/store.js', import.meta.url).href
    )) as typeof StoreModule;
    const store = await built.CassetteStore.open(dir, {
      watch: false,
      log: (l) => lines.push(l),
      loose: { ignore: [] },
    });
    keep({ close: async () => store.close() });
    expect(store.isIndexed).toBe(true);
    expect(lines.join('\n')).toContain(`refusing ${linked}: it is a symbolic link`);
    expect(lines.join('\n')).toContain(`ignoring ${broken}: not valid JSON`);
    expect(lines.join('\n')).not.toContain('SECRET');
    expect(lines.join('\n')).not.toContain('worker threads failed'); // read by the threads, not by the fallback
    expect(store.size).toBe(count + 3); // the broken file is dropped once read; the link was never indexed
    expect([...store.errorKeys(-32601)]).toEqual([notFound]);
    expect(store.issuedState('state-1')).toBe(true);
    expect(store.issuedState('forged')).toBe(false);
    // a loose hit: the same arguments in another key order (the exact key differs)
    for (const i of [0, 4321, count - 1]) {
      const reordered = { page: i % 7, q: `query ${i}` };
      expect(store.lookup(keyFor(call('search', reordered)))).toBeUndefined();
      expect(
        store.lookupLoose(looseKeyFor('tools/call', { name: 'search', arguments: reordered }))?.[0].result,
      ).toEqual({
        content: [{ type: 'text', text: `result ${i}` }],
      });
    }
  }, 60_000);

  it('a replay proxy answers at once on such a cassette, hits and loose hits alike; a bounded cache still serves every entry', async () => {
    const count = WORKER_THRESHOLD + 100;
    const dir = await bigCassette(count);
    const proxy = keep(await startProxy({ mode: 'replay', cacheDir: dir }));
    const client = keep(await connectClient(proxy.url));
    const reordered = await client.client.callTool({ name: 'search', arguments: { page: 3, q: 'query 10' } });
    expect(reordered.content).toEqual([{ type: 'text', text: 'result 10' }]);
    const small = await CassetteStore.open(dir, { watch: false, cacheBytes: 4096 });
    keep({ close: async () => small.close() });
    for (let round = 0; round < 2; round++) {
      for (const i of [0, 1, 2, 3, 500, 9000 % count]) {
        expect(small.lookup(keyFor(call('search', { q: `query ${i}`, page: i % 7 })))?.[0].result).toEqual({
          content: [{ type: 'text', text: `result ${i}` }],
        });
      }
    }
  }, 60_000);
});

describe('a replay miss', () => {
  it('names keys recorded for the same tool only (from the index), never those of a tool whose name extends it', async () => {
    const dir = await tempDir();
    await writeFile(
      join(dir, `1 ${keyFor(call('foo', { a: 1 }))}.json`),
      JSON.stringify({ name: 'foo', arguments: { a: 1 }, result: { content: [] } }),
    );
    await writeFile(
      join(dir, `2 ${keyFor(call('foo_bar', { a: 1 }))}.json`),
      JSON.stringify({ name: 'foo_bar', arguments: { a: 1 }, result: { content: [] } }),
    );
    const proxy = keep(await startProxy({ mode: 'replay', cacheDir: dir }));
    const answer = await fetch(proxy.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, ...call('foo', { a: 2 }) }),
    });
    const message = ((await answer.json()) as { error: { message: string } }).error.message;
    expect(message).toContain(keyFor(call('foo', { a: 1 })));
    expect(message).not.toContain('foo_bar');
  });
});

describe('exports stream', () => {
  it('the same text as the whole document stringified, for the single file and HAR', async () => {
    const upstream = keep(await startSdkServer());
    const dir = await tempDir();
    const recorder = keep(await startProxy({ mode: 'record', upstreamUrl: upstream.url, cacheDir: dir }));
    const client = keep(await connectClient(recorder.url));
    for (const text of ['a', 'b', 'c']) await client.client.callTool({ name: 'echo', arguments: { text } });
    await recorder.flush();
    const out = await tempDir('rewind-out-');
    const now = new Date('2026-01-02T03:04:05.000Z');
    await writeSingleFileExport(dir, join(out, 'c.json'), { now });
    await writeHarExport(dir, join(out, 'c.har'), { now, creatorVersion: '9.9.9' });
    expect(await readFile(join(out, 'c.json'), 'utf8')).toBe(
      JSON.stringify(await exportSingleFile(dir, { now }), null, 2) + '\n',
    );
    expect(await readFile(join(out, 'c.har'), 'utf8')).toBe(
      JSON.stringify(await exportHar(dir, { now, creatorVersion: '9.9.9' }), null, 2) + '\n',
    );
    const empty = await tempDir();
    await mkdir(join(empty, 'x'));
    await writeSingleFileExport(join(empty, 'x'), join(out, 'empty.json'), { now });
    expect(JSON.parse(await readFile(join(out, 'empty.json'), 'utf8'))).toMatchObject({ entries: [] });
  });
});

describe('recording releases an answer only once its entry is on disk', () => {
  it('every answer a client gets already has its distilled file (50 concurrent calls)', async () => {
    const upstream = keep(await startSdkServer());
    const dir = await tempDir();
    const recorder = keep(await startProxy({ mode: 'record', upstreamUrl: upstream.url, cacheDir: dir }));
    const files: string[] = [];
    recorder.events.on('exchange', (e) => e.cassette === 'recorded' && files.push(e.key));
    const client = keep(await connectClient(recorder.url));
    const missing: string[] = [];
    await Promise.all(
      Array.from({ length: 50 }, async (_, i) => {
        const args = { text: `durable ${i}` };
        await client.client.callTool({ name: 'echo', arguments: args });
        // checked in the tick the answer arrived: the entry must be there already
        const key = keyFor(call('echo', args));
        if (!recorder.store?.has(key) || !existsSync(join(dir, recorder.store.lookup(key)![0].file))) missing.push(key);
      }),
    );
    expect(missing).toEqual([]);
  });
});
