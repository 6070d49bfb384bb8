/** startProxy: the engine in-process, mode from the options or the environment, typed errors, misses with their closest key. */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CassetteMissError, CassetteMissingError, OptionsError, resolveMode, startProxy } from '../../src/lib/index.js';
import { connectClient } from '../fixtures/client.js';
import { everythingEntry } from '../fixtures/everything.js';
import { distilledFiles, removeTempDirs, tempDir } from '../helpers/temp.js';

const upstream = { command: process.execPath, args: [everythingEntry(), 'stdio'] };
const gone = { command: '/nonexistent/server-gone' };

afterAll(removeTempDirs);

describe('resolveMode', () => {
  it('an option wins, then MCP_REWIND_MODE, then replay on CI and hybrid elsewhere; MCP_REWIND_STRICT=1 makes it strict', () => {
    expect(resolveMode({}, {})).toEqual({ mode: 'hybrid', strict: false });
    expect(resolveMode({}, { CI: 'true' })).toEqual({ mode: 'replay', strict: false });
    expect(resolveMode({}, { CI: 'true', MCP_REWIND_MODE: 'record' }).mode).toBe('record');
    expect(resolveMode({}, { MCP_REWIND_MODE: 'passthrough' }).mode).toBe('proxy-only');
    expect(resolveMode({ mode: 'replay' }, { MCP_REWIND_MODE: 'record' }).mode).toBe('replay');
    expect(resolveMode({}, { MCP_REWIND_STRICT: '1' }).strict).toBe(true);
    expect(resolveMode({ strict: false }, { MCP_REWIND_STRICT: '1' }).strict).toBe(false);
    expect(() => resolveMode({}, { MCP_REWIND_MODE: 'recrod' })).toThrow(
      new OptionsError('MCP_REWIND_MODE must be record, replay, hybrid or passthrough, got "recrod"'),
    );
  });
});

describe('startProxy', () => {
  let cassette: string;
  let live: unknown;

  it('record: exchanges() lists what went through; close() returns once every entry is on disk', async () => {
    cassette = join(await tempDir(), 'cassette');
    const proxy = await startProxy({ upstream, cassette, env: { MCP_REWIND_MODE: 'record' } });
    expect(proxy.mode).toBe('record');
    const c = await connectClient(proxy.url);
    live = await c.client.callTool({ name: 'get-sum', arguments: { a: 2, b: 40 } });
    await c.close();
    await proxy.close();
    expect((await distilledFiles(cassette)).some((f) => f.includes('tools_call_get-sum_'))).toBe(true);
    expect(proxy.exchanges().find((e) => e.method === 'tools/call')).toMatchObject({
      tool: 'get-sum',
      cassette: 'recorded',
      source: 'upstream',
    });
  });

  it('replay on CI (CI=true): the server is never started; `await using` closes the proxy', async () => {
    let url: string;
    {
      await using proxy = await startProxy({ upstream: gone, cassette, env: { CI: 'true' } });
      expect(proxy.mode).toBe('replay');
      url = proxy.url;
      const c = await connectClient(proxy.url);
      expect(await c.client.callTool({ name: 'get-sum', arguments: { a: 2, b: 40 } })).toEqual(live);
      await c.close();
    }
    await expect(fetch(url, { method: 'POST' })).rejects.toThrow(); // closed at the end of the block
  });

  it('strict (MCP_REWIND_STRICT=1): misses() has the closest key and the difference; assertNoMisses throws a CassetteMissError', async () => {
    const proxy = await startProxy({ cassette, env: { MCP_REWIND_MODE: 'replay', MCP_REWIND_STRICT: '1' } });
    expect(proxy.strict).toBe(true);
    const c = await connectClient(proxy.url);
    const refused = await c.client
      .callTool({ name: 'get-sum', arguments: { a: 2, b: 41 } })
      .catch((error: Error) => error);
    expect(String(refused)).toContain('arguments.b: 40 recorded, 41 asked');
    await c.close();
    await proxy.close();
    expect(proxy.misses()).toHaveLength(1);
    expect(() => proxy.assertNoMisses()).toThrow(CassetteMissError);
    expect(() => proxy.assertNoMisses()).toThrow(
      /cassette .*cassette: 1 replay miss:\n {2}1\. tools\/call "get-sum" with arguments \{"a":2,"b":41\}/,
    );
  });

  it('replay of a missing cassette rejects with CassetteMissingError; nothing is created', async () => {
    const missing = join(await tempDir(), 'nope');
    await expect(startProxy({ mode: 'replay', cassette: missing })).rejects.toBeInstanceOf(CassetteMissingError);
    expect(existsSync(missing)).toBe(false);
  });

  it('bad options are OptionsErrors naming the option, before anything starts', async () => {
    const dir = await tempDir();
    await expect(startProxy({ mode: 'record', cassette: dir })).rejects.toThrow(
      new OptionsError('upstream is required in record mode ({ url } or { command, args })'),
    );
    await expect(startProxy({ mode: 'replay', cassette: dir, port: 70_000 })).rejects.toThrow(OptionsError);
    await expect(startProxy({ mode: 'replay', cassette: dir, redact: ['('] })).rejects.toThrow(/^redact: /);
    await expect(
      startProxy({ mode: 'replay', cassette: dir, rules: { tools: [{ nme: 'x' }] } as never }),
    ).rejects.toThrow(/^rules: /);
    expect(readdirSync(dir)).toEqual([]);
  });
});
