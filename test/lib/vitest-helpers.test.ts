/** mcp-rewind/vitest from the sources: a cassette per test, named after the test; cassetteName's safe, stable names. */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cassetteName } from '../../src/lib/index.js';
import { setupCassettes, useCassette } from '../../src/lib/vitest.js';
import { connectClient } from '../fixtures/client.js';
import { everythingEntry } from '../fixtures/everything.js';
import { removeTempDirs, tempDir } from '../helpers/temp.js';

let dir: string;
beforeAll(async () => {
  dir = await tempDir();
  setupCassettes({
    dir,
    upstream: { command: process.execPath, args: [everythingEntry(), 'stdio'] },
    env: { MCP_REWIND_MODE: 'record' },
  });
});
afterAll(removeTempDirs);

describe('cassetteName', () => {
  it('keeps letters, digits, . _ -; any other run is one -; a hash keeps distinct names apart', () => {
    expect(cassetteName('weather > says "sunny" in Paris')).toMatch(/^weather-says-sunny-in-Paris-[0-9a-f]{8}$/);
    expect(cassetteName('a b')).not.toBe(cassetteName('a-b'));
    expect(cassetteName('a b')).toBe(cassetteName('a b'));
    for (const hostile of ['../../etc/passwd', '..', '/', 'C:\\x', 'con', '\u0000\u202e', 'x'.repeat(500)]) {
      const name = cassetteName(hostile);
      expect(name, hostile).toMatch(/^[A-Za-z0-9_][A-Za-z0-9._-]{0,80}-[0-9a-f]{8}$/);
    }
  });
});

describe('useCassette', () => {
  it('records into <dir>/<this test’s name>', async () => {
    const mcp = await useCassette();
    const c = await connectClient(mcp.url);
    await c.client.callTool({ name: 'echo', arguments: { message: 'named' } });
    await c.close();
    expect(mcp.cassette).toBe(join(dir, cassetteName(expect.getState().currentTestName as string)));
    expect(mcp.cassette).toMatch(/useCassette-records-into-dir-this-test-s-name-[0-9a-f]{8}$/);
  });

  it('the previous test’s cassette was closed with its entries on disk', () => {
    const [folder] = readdirSync(dir).filter((f) => f.startsWith('useCassette-records'));
    expect(existsSync(join(dir, folder))).toBe(true);
    expect(readdirSync(join(dir, folder)).some((f) => /^\d+ tools_call_echo_[0-9a-f]{16}\.json$/.test(f))).toBe(true);
  });
});
