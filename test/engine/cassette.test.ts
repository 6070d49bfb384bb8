import { afterEach, describe, expect, it } from 'vitest';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { argumentsHash, keyFor, rawKeyFor } from '../../src/main/engine/cassette/keys.js';
import { buildResultHasher } from '../../src/main/engine/cassette/hash.js';
import { hash16 } from '../../src/main/engine/fs/hash16.js';
import { MAX_KEY_LENGTH, safeKey } from '../../src/main/engine/cassette/safe-name.js';
import { redactHeaders } from '../../src/main/engine/redact.js';
import { CassetteStore } from '../../src/main/engine/cassette/store.js';
import { removeTempDirs, tempDir } from '../helpers/temp.js';

afterEach(removeTempDirs);

describe('cache keys', () => {
  it("are mcp-rewind's for its five methods", () => {
    expect(
      keyFor({
        method: 'initialize',
        params: { protocolVersion: 'x', capabilities: {}, clientInfo: { name: 'a', version: '1' } },
      }),
    ).toBe('initialize');
    expect(keyFor({ method: 'tools/list' })).toBe('tools_list');
    expect(keyFor({ method: 'resources/list', params: {} })).toBe('resources_list');
    expect(keyFor({ method: 'resources/templates/list' })).toBe('resources_templates_list');
    // sha256(JSON.stringify(arguments ?? {})) cut to 16 hex, as mcp-rewind computes it
    expect(keyFor({ method: 'tools/call', params: { name: 'echo', arguments: { text: 'hello' } } })).toBe(
      'tools_call_echo_cbbbdcd27692344d',
    );
    expect(keyFor({ method: 'tools/call', params: { name: 'noargs' } })).toBe(`tools_call_noargs_${hash16('{}')}`);
  });

  it('ignore _meta (progress tokens) and give each list page its own key', () => {
    const plain = keyFor({ method: 'resources/read', params: { uri: 'file:///a' } });
    expect(keyFor({ method: 'resources/read', params: { uri: 'file:///a', _meta: { progressToken: 7 } } })).toBe(plain);
    expect(
      keyFor({ method: 'tools/call', params: { name: 't', arguments: { a: 1 }, _meta: { progressToken: 'x' } } }),
    ).toBe(keyFor({ method: 'tools/call', params: { name: 't', arguments: { a: 1 } } }));
    expect(keyFor({ method: 'tools/list', params: { cursor: 'page-2' } })).toBe(`tools_list_${hash16('"page-2"')}`);
    expect(rawKeyFor({ method: 'prompts/get', params: { name: 'greet', arguments: { name: 'Ada' } } })).toBe(
      `prompts_get_greet_${argumentsHash({ name: 'Ada' })}`,
    );
  });
});

describe('safe file names', () => {
  const hostile = [
    '../escape',
    'a/b',
    'back\\slash',
    'nul\u0000byte',
    'x'.repeat(600),
    'CON',
    '..',
    'ünï/cødé',
    'tab\there',
    'q?*:<>|"',
    '\ud800lone',
    '%41',
  ];

  it('leave valid MCP tool names unchanged', () => {
    for (const name of ['echo', 'get-sum', 'a.b_c-D9', 'tools_call_x_0123456789abcdef'])
      expect(safeKey(name)).toBe(name);
  });

  it('never contain separators, control or reserved characters, and stay short', () => {
    for (const name of hostile) {
      const key = safeKey(`tools_call_${name}_0123456789abcdef`);
      expect(key).toMatch(/^[A-Za-z0-9_.%~-]+$/);
      expect(key.length).toBeLessThanOrEqual(MAX_KEY_LENGTH);
      expect(Buffer.byteLength(`999999 ${key}.res-head.json`)).toBeLessThan(255);
    }
  });

  it('are reversible for short names and distinct for distinct names', () => {
    expect(decodeURIComponent(safeKey('a/b%c'))).toBe('a/b%c');
    const keys = new Set(hostile.map((n) => safeKey(n)));
    expect(keys.size).toBe(hostile.length);
    expect(safeKey('x'.repeat(600))).not.toBe(safeKey('x'.repeat(601)));
  });
});

describe('result hashing', () => {
  it('hashes the whole result, or the value at a path minus ignored paths', () => {
    const a = { structuredContent: { report: { id: 'r1', rows: [1, 2] } }, content: [] };
    const b = { structuredContent: { report: { id: 'r2', rows: [1, 2] } }, content: [{ type: 'text', text: 'x' }] };
    expect(buildResultHasher()(a)).not.toBe(buildResultHasher()(b));
    const narrowed = buildResultHasher({ path: 'structuredContent.report', ignore: ['id'] });
    expect(narrowed(a)).toBe(narrowed(b));
    expect(narrowed(a)).toBe(hash16(JSON.stringify({ rows: [1, 2] })));
    expect(a.structuredContent.report.id).toBe('r1'); // the result itself is untouched
  });
});

describe('redaction', () => {
  it('replaces credentials and keeps the rest', () => {
    const out = redactHeaders({
      authorization: 'Bearer s',
      cookie: 'a=b',
      'x-api-key': 'k',
      'x-custom-token': 't',
      'content-type': 'application/json',
      'mcp-protocol-version': '2025-11-25',
    });
    expect(out).toEqual({
      authorization: '[REDACTED]',
      cookie: '[REDACTED]',
      'x-api-key': '[REDACTED]',
      'x-custom-token': '[REDACTED]',
      'content-type': 'application/json',
      'mcp-protocol-version': '2025-11-25',
    });
  });
});

describe('cassette store', () => {
  const result = (text: string) => ({ content: [{ type: 'text', text }] });

  it('indexes the folder once and numbers new entries after the highest existing one', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, '7 tools_list.json'), JSON.stringify({ tools: [] }));
    await writeFile(join(dir, '9.req.json'), '{}');
    const store = await CassetteStore.open(dir, { watch: false });
    const added = await store.add('tools/call', 'tools_call_a_1', { result: result('a'), resultHash: 'h' });
    expect(added.n).toBe(10);
    expect(store.lookup('tools_call_a_1')?.map((e) => e.n)).toEqual([10]);
    expect(JSON.parse(await readFile(join(dir, '10 tools_call_a_1.json'), 'utf8'))).toMatchObject({
      arguments: {},
      result: result('a'),
      resultHash: 'h',
    });
    expect(store.lookup('tools_list')?.[0].result).toEqual({ tools: [] });
    store.close();
  });

  it('reports and skips a broken file instead of failing, and clears temp files left by a crash', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, '1 initialize.json'), '{"protocolVersion": "2025-');
    await writeFile(join(dir, '.rewind-tmp-abc'), 'half written');
    const lines: string[] = [];
    const store = await CassetteStore.open(dir, { watch: false, log: (l) => lines.push(l) });
    expect(store.lookup('initialize')).toBeUndefined();
    expect(lines.join('\n')).toContain('ignoring 1 initialize.json');
    expect(await readdir(dir)).toEqual(['1 initialize.json']);
    store.close();
  });

  it('--clean removes only cassette files', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, '1 initialize.json'), '{}');
    await writeFile(join(dir, '1 initialize.req.json'), '{}');
    await writeFile(join(dir, 'notes.txt'), 'mine');
    const store = await CassetteStore.open(dir, { watch: false, clean: true });
    expect(store.size).toBe(0);
    expect(await readdir(dir)).toEqual(['notes.txt']);
    store.close();
  });

  it('serves a hand edit without a restart', async () => {
    const dir = await tempDir();
    const store = await CassetteStore.open(dir);
    await store.add('tools/call', 'tools_call_a_1', { result: result('before'), resultHash: 'h' });
    await writeFile(join(dir, '1 tools_call_a_1.json'), JSON.stringify({ arguments: {}, result: result('after') }));
    await writeFile(join(dir, '2 tools_call_b_2.json'), JSON.stringify({ arguments: {}, result: result('new file') }));
    await expect.poll(() => store.lookup('tools_call_a_1')?.[0].result, { timeout: 5000 }).toEqual(result('after'));
    await expect.poll(() => store.lookup('tools_call_b_2')?.[0].result, { timeout: 5000 }).toEqual(result('new file'));
    store.close();
  });
});
