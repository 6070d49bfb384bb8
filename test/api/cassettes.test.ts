import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CassetteEntrySummary } from '../../src/shared/api.js';
import { distilledFiles, tempDir } from '../helpers/temp.js';
import { app, call, cleanup, client, failure, textOf, upstream, type TestApp } from './harness.js';

afterEach(cleanup);

/** A cassette folder recorded through the API: echo "hi" and add 2+3. */
async function recorded(t: TestApp): Promise<string> {
  const server = await upstream();
  const cacheDir = await tempDir();
  const rec = await call(t.api, 'proxies.create', { mode: 'record', upstreamUrl: server.url, cacheDir });
  const c = await client(rec.url as string);
  await c.client.callTool({ name: 'echo', arguments: { text: 'hi' } });
  await c.client.callTool({ name: 'add', arguments: { a: 2, b: 3 } });
  await c.close();
  await expect
    .poll(async () => (await distilledFiles(cacheDir)).filter((f) => f.includes('tools_call_')).length)
    .toBe(2);
  await call(t.api, 'proxies.stop', { id: rec.id });
  return cacheDir;
}

const byTool = (entries: CassetteEntrySummary[], tool: string): CassetteEntrySummary =>
  entries.find((e) => e.tool === tool) as CassetteEntrySummary;

describe('api: cassettes', () => {
  it('an entry that recorded a JSON-RPC error previews its code and message', async () => {
    const t = await app();
    const server = await upstream();
    const cacheDir = await tempDir();
    const rec = await call(t.api, 'proxies.create', { mode: 'record', upstreamUrl: server.url, cacheDir });
    const c = await client(rec.url as string);
    await expect(c.client.readResource({ uri: 'fixture://nope' })).rejects.toThrow(/fixture:\/\/nope/);
    await expect
      .poll(async () => (await distilledFiles(cacheDir)).filter((f) => f.includes('resources_read')).length)
      .toBe(1);
    const entry = (await call(t.api, 'cassettes.list', { dir: cacheDir })).entries.find(
      (e) => e.method === 'resources/read',
    );
    expect(entry?.preview).toMatch(/^error -32\d{3}: .*fixture:\/\/nope/);
  });

  it('lists, reads, hand-edits (served by a running replay at the next call), duplicates and deletes entries', async () => {
    const t = await app();
    const dir = await recorded(t);

    const listed = await call(t.api, 'cassettes.list', { dir });
    expect(listed.dir).toBe(dir);
    expect(listed.entries.map((e) => e.n)).toEqual([...listed.entries.map((e) => e.n)].sort((a, b) => a - b));
    const echo = byTool(listed.entries, 'echo');
    expect(echo).toMatchObject({
      method: 'tools/call',
      arguments: { text: 'hi' },
      preview: 'echo: hi',
      hits: 0,
      recordedAt: expect.any(String),
    });
    expect(echo.file).toBe(`${echo.n} ${echo.key}.json`);
    expect(byTool(listed.entries, 'add')).toMatchObject({ arguments: { a: 2, b: 3 }, preview: '5' });
    expect(listed.entries.find((e) => e.key === 'initialize')).toMatchObject({
      method: 'initialize',
      preview: expect.stringContaining('fixture-server'),
    });

    // a replay proxy on the same folder serves the recording and counts hits
    const replay = await call(t.api, 'proxies.create', { mode: 'replay', cacheDir: dir });
    const c = await client(replay.url as string);
    expect(textOf(await c.client.callTool({ name: 'echo', arguments: { text: 'hi' } }))).toBe('echo: hi');
    await expect.poll(async () => byTool((await call(t.api, 'cassettes.list', { dir })).entries, 'echo').hits).toBe(1);

    // hand edit: the very next replayed call gets it, no restart
    const { text } = await call(t.api, 'cassettes.read', { dir, file: echo.file });
    expect(JSON.parse(text)).toMatchObject({
      name: 'echo',
      arguments: { text: 'hi' },
      result: { content: [{ type: 'text', text: 'echo: hi' }] },
    });
    const edited = JSON.parse(text) as { result: { content: Array<{ text: string }> } };
    edited.result.content[0].text = 'edited by hand';
    const newText = JSON.stringify(edited, null, 1);
    const written = await call(t.api, 'cassettes.write', { dir, file: echo.file, text: newText });
    expect(written.entry).toMatchObject({ file: echo.file, preview: 'edited by hand', tool: 'echo', hits: 1 });
    expect(await readFile(join(dir, echo.file), 'utf8')).toBe(newText); // kept as typed
    expect(textOf(await c.client.callTool({ name: 'echo', arguments: { text: 'hi' } }))).toBe('edited by hand');
    expect((await readdir(dir)).filter((f) => f.startsWith('.'))).toEqual([]); // no temp file left

    // duplicate: the next free sequence number, same key and text
    const maxN = Math.max(...(await readdir(dir)).map((f) => parseInt(f, 10)).filter((n) => !Number.isNaN(n)));
    const dup = (await call(t.api, 'cassettes.duplicate', { dir, file: echo.file })).entry;
    expect(dup).toMatchObject({
      file: `${maxN + 1} ${echo.key}.json`,
      n: maxN + 1,
      key: echo.key,
      preview: 'edited by hand',
    });
    expect(await readFile(join(dir, dup.file), 'utf8')).toBe(newText);
    expect((await call(t.api, 'cassettes.list', { dir })).entries.filter((e) => e.key === echo.key)).toHaveLength(2);

    // delete: the entry and its debug files go; the replay follows
    const stem = echo.file.slice(0, -'.json'.length);
    expect((await readdir(dir)).filter((f) => f.startsWith(stem + '.'))).not.toEqual([]);
    expect(await call(t.api, 'cassettes.delete', { dir, file: echo.file })).toEqual({ deleted: echo.file });
    expect((await readdir(dir)).filter((f) => f.startsWith(stem))).toEqual([]);
    expect(textOf(await c.client.callTool({ name: 'echo', arguments: { text: 'hi' } }))).toBe('edited by hand'); // the copy
    await call(t.api, 'cassettes.delete', { dir, file: dup.file });
    await expect(c.client.callTool({ name: 'echo', arguments: { text: 'hi' } })).rejects.toThrow(/no recorded answer/);
    expect((await call(t.api, 'cassettes.list', { dir })).entries.some((e) => e.key === echo.key)).toBe(false);
  });

  it('refuses writes that are not a valid entry, naming the problem, and leaves the file alone', async () => {
    const t = await app();
    const dir = await recorded(t);
    const echo = byTool((await call(t.api, 'cassettes.list', { dir })).entries, 'echo');
    const before = await readFile(join(dir, echo.file), 'utf8');
    const write = (text: string, file = echo.file): Promise<string> =>
      failure(call(t.api, 'cassettes.write', { dir, file, text }));

    expect(await write('{ not json')).toMatch(/^text: not valid JSON/);
    expect(await write(JSON.stringify({ name: 'echo', result: 'a string' }))).toMatch(
      /^text: not a cassette entry: result: /,
    );
    // the protocol's own schema for the entry's revision (the SDK's), with its message for the missing field
    expect(await write(JSON.stringify({ name: 'echo', result: { content: [{ type: 'text' }] } }))).toBe(
      'text: not a valid MCP tool result (the 2025 revisions, @modelcontextprotocol/sdk/types.js): result.content[0].text: Invalid input: expected string, received undefined',
    );
    expect(
      await write(
        JSON.stringify({ name: 'echo', protocolVersion: '2026-07-28', result: { content: [{ type: 'text' }] } }),
      ),
    ).toMatch(
      /^text: not a valid MCP tool result \(2026-07-28, @modelcontextprotocol\/core\): result\.content\[0\]\.text: /,
    );
    expect(await write(JSON.stringify({ name: 'echo', result: { content: 'nope' } }))).toContain('result.content');
    expect(await write(JSON.stringify({ $rewind: 1, method: 'x' }))).toMatch(/^text: not a cassette entry: result: /);
    expect(await write('[]', '7 tools_list.json')).toMatch(/^text: not a cassette entry/);
    expect(await write('{}', `${echo.n} ${echo.key}.req.json`)).toContain('is a debug file');
    expect(await readFile(join(dir, echo.file), 'utf8')).toBe(before);

    // a new entry file is fine when valid; a broken file on disk stays listed so it can be fixed
    expect(
      (await call(t.api, 'cassettes.write', { dir, file: '99 tools_list.json', text: '{"tools":[]}' })).entry,
    ).toMatchObject({
      n: 99,
      key: 'tools_list',
      method: 'tools/list',
      preview: '0 tools:',
    });
    await writeFile(join(dir, '100 broken.json'), '{ oops');
    expect((await call(t.api, 'cassettes.list', { dir })).entries.at(-1)).toMatchObject({
      file: '100 broken.json',
      preview: expect.stringContaining('(invalid entry)'),
    });
    expect(await failure(call(t.api, 'cassettes.read', { dir, file: '5 missing.json' }))).toBe(
      'file: no entry "5 missing.json" in this folder',
    );
    expect(await failure(call(t.api, 'cassettes.list', { dir: join(dir, 'nope') }))).toContain('dir: no such folder');
  });

  it('refuses file names that leave the folder or are not entry names', async () => {
    const t = await app();
    const parent = await tempDir();
    const dir = join(parent, 'cassette');
    await call(t.api, 'cassettes.list', { dir: parent });
    const { mkdir } = await import('node:fs/promises');
    await mkdir(dir);
    await writeFile(join(parent, 'x.json'), '{"secret":true}');
    await writeFile(join(parent, '1 a.json'), '{"tools":[]}');
    await writeFile(join(dir, '1 a.json'), '{"tools":[]}');
    const attempts = [
      '../x.json',
      '1 a/../../x.json',
      '1 a/../../1 a.json',
      '../1 a.json',
      join(parent, '1 a.json'),
      '/etc/passwd',
      '1 a\\..\\..\\x.json',
      '..',
      '.',
      'x.json',
      '1 a.json\0.json',
      '1 a.txt',
      ' 1 a.json',
    ];
    for (const file of attempts) {
      for (const command of ['cassettes.read', 'cassettes.delete', 'cassettes.duplicate'] as const) {
        expect(await failure(call(t.api, command, { dir, file })), `${command} ${JSON.stringify(file)}`).toMatch(
          /^file: /,
        );
      }
      expect(
        await failure(call(t.api, 'cassettes.write', { dir, file, text: '{"tools":[]}' })),
        JSON.stringify(file),
      ).toMatch(/^file: /);
    }
    expect(await readFile(join(parent, 'x.json'), 'utf8')).toBe('{"secret":true}');
    expect((await readdir(parent)).sort()).toEqual(['1 a.json', 'cassette', 'x.json']);
    expect(await readdir(dir)).toEqual(['1 a.json']);
    expect(await call(t.api, 'cassettes.read', { dir, file: '1 a.json' })).toEqual({ text: '{"tools":[]}' });
  });
});
