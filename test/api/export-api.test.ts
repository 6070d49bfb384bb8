import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startProxy } from '../../src/main/engine/proxy.js';
import { distilledFiles, tempDir } from '../helpers/temp.js';
import { app, call, cleanup, client, failure, keep, textOf, upstream } from './harness.js';

afterEach(cleanup);

const SECRET = 'Bearer sk-export-secret-4242';

/** A folder recorded through the engine (startProxy) by a client that sends an Authorization header. */
async function recorded(): Promise<string> {
  const server = await upstream();
  const cacheDir = await tempDir('rewind-export-src-');
  const proxy = keep(await startProxy({ mode: 'record', upstreamUrl: server.url, cacheDir, port: 0 }));
  const c = await client(proxy.url, { headers: { Authorization: SECRET } });
  await c.client.callTool({ name: 'echo', arguments: { text: 'exported' } });
  await c.client.callTool({ name: 'add', arguments: { a: 20, b: 22 } });
  await c.close();
  await expect
    .poll(async () => (await distilledFiles(cacheDir)).filter((f) => f.includes('tools_call_')).length)
    .toBe(2);
  await proxy.close();
  // the debug files hold the redacted header: the secret never reached the disk
  const req = (await readdir(cacheDir)).find((f) => f.endsWith('.req.json') && f.includes('tools_call_echo')) as string;
  expect(await readFile(join(cacheDir, req), 'utf8')).toContain('[REDACTED]');
  return cacheDir;
}

/** Replays an export with the engine and a real SDK client; answers echo's and add's texts. */
async function replayed(cacheDir: string): Promise<string[]> {
  const proxy = keep(await startProxy({ mode: 'replay', cacheDir, port: 0 }));
  const c = await client(proxy.url);
  const texts = [
    textOf(await c.client.callTool({ name: 'echo', arguments: { text: 'exported' } })),
    textOf(await c.client.callTool({ name: 'add', arguments: { a: 20, b: 22 } })),
  ];
  await c.close();
  return texts;
}

async function allText(path: string): Promise<string> {
  const info = await stat(path);
  if (!info.isDirectory()) return readFile(path, 'utf8');
  const names = await readdir(path);
  return (await Promise.all(names.map((n) => readFile(join(path, n), 'utf8')))).join('\n');
}

describe('api: export', () => {
  it('previews and writes a folder of replay files only, which replays with the server gone', async () => {
    const t = await app();
    const dir = await recorded();
    const out = join(await tempDir('rewind-export-out-'), 'ci-cassette');
    const preview = await call(t.api, 'export.preview', { dir, format: 'folder', out });
    const distilled = await distilledFiles(dir);
    expect(preview.files.map((f) => relative(out, f.path))).toEqual(distilled);
    for (const f of preview.files) expect(f.bytes).toBe((await stat(join(dir, relative(out, f.path)))).size); // copied verbatim
    expect(preview.command).toBe(`npx mcp-rewind@0.0.0-test --replay --cache ${out}`);
    expect(preview.out).toBe(out);
    await expect(stat(out)).rejects.toThrow(); // a preview writes nothing

    const run = await call(t.api, 'export.run', { dir, format: 'folder', out });
    expect(run.written).toEqual(preview.files.map((f) => f.path));
    expect(run.command).toBe(preview.command);
    expect((await readdir(out)).sort()).toEqual([...distilled].sort()); // no .req/.res/.res-head files
    expect(await replayed(out)).toEqual(['echo: exported', '42']);
    expect(await allText(out)).not.toContain('sk-export-secret');
  });

  it('writes a single-file cassette that replays, and HAR 1.2 with the headers redacted', async () => {
    const t = await app();
    const dir = await recorded();
    const outDir = await tempDir('rewind-export-out-');
    const file = join(outDir, 'cassette.json');
    const preview = await call(t.api, 'export.preview', { dir, format: 'file', out: file });
    expect(preview.files).toEqual([{ path: file, bytes: expect.any(Number) }]);
    expect(preview.command).toBe(`npx mcp-rewind@0.0.0-test --replay --cache ${file}`);
    const run = await call(t.api, 'export.run', { dir, format: 'file', out: file });
    expect(run.written).toEqual([file]);
    expect((await stat(file)).size).toBe(preview.files[0].bytes);
    const single = JSON.parse(await readFile(file, 'utf8')) as { format: string; entries: unknown[] };
    expect(single.format).toBe('mcp-rewind-cassette');
    expect(single.entries).toHaveLength((await distilledFiles(dir)).length);
    expect(await replayed(file)).toEqual(['echo: exported', '42']);

    const har = join(outDir, 'traffic.har');
    const harPreview = await call(t.api, 'export.preview', { dir, format: 'har', out: har });
    expect(harPreview.redacted).toBeGreaterThanOrEqual(2); // Authorization (and Mcp-Session-Id) on the recorded requests
    expect(harPreview.command).toBe(`npx mcp-rewind@0.0.0-test export --cache ${dir} --har ${har}`);
    await call(t.api, 'export.run', { dir, format: 'har', out: har });
    const log = (
      JSON.parse(await readFile(har, 'utf8')) as {
        log: { version: string; entries: Array<{ request: { headers: Array<{ name: string; value: string }> } }> };
      }
    ).log;
    expect(log.version).toBe('1.2');
    const auth = log.entries.flatMap((e) => e.request.headers).filter((h) => h.name.toLowerCase() === 'authorization');
    expect(auth.length).toBeGreaterThan(0);
    expect(auth.every((h) => h.value === '[REDACTED]')).toBe(true);
    for (const path of [file, har]) expect(await allText(path)).not.toContain('sk-export-secret');
  });

  it('redacts secret-looking keys a hand edit put into an entry, and counts them', async () => {
    const t = await app();
    const dir = await recorded();
    const echo = (await distilledFiles(dir)).find((f) => f.includes('tools_call_echo')) as string;
    const entry = JSON.parse(await readFile(join(dir, echo), 'utf8')) as Record<string, unknown>;
    await writeFile(
      join(dir, echo),
      JSON.stringify({ ...entry, headers: { Authorization: SECRET, Accept: 'x' }, cookie: 'sid=1' }),
    );
    for (const format of ['folder', 'file'] as const) {
      const out = join(await tempDir('rewind-export-out-'), format === 'file' ? 'c.json' : 'c');
      const preview = await call(t.api, 'export.preview', { dir, format, out });
      expect(preview.redacted).toBe(2);
      await call(t.api, 'export.run', { dir, format, out });
      expect(await allText(out)).not.toContain('sk-export-secret');
      expect(await allText(out)).not.toContain('sid=1');
    }
  });

  it('HAR and single-file exports carry what replay serves: a hand-edited entry, not the stale debug file', async () => {
    const t = await app();
    const dir = await recorded();
    const echo = (await call(t.api, 'cassettes.list', { dir })).entries.find((e) => e.tool === 'echo')!;
    const entry = JSON.parse((await call(t.api, 'cassettes.read', { dir, file: echo.file })).text) as {
      result: { content: Array<{ text: string }> };
    };
    entry.result.content[0].text = 'edited by hand';
    await call(t.api, 'cassettes.write', { dir, file: echo.file, text: JSON.stringify(entry, null, 2) });
    expect(await readFile(join(dir, echo.file.replace(/\.json$/, '.res.json')), 'utf8')).toContain('echo: exported'); // the debug file is stale

    const out = await tempDir('rewind-export-out-');
    await call(t.api, 'export.run', { dir, format: 'har', out: join(out, 'x.har') });
    const entries = (
      JSON.parse(await readFile(join(out, 'x.har'), 'utf8')) as {
        log: {
          entries: Array<{
            request: { postData?: { text: string } };
            response: { content: { text: string; mimeType: string } };
            _mcpRewind: { edited?: boolean };
          }>;
        };
      }
    ).log.entries;
    const echoHar = entries.find((e) => e.request.postData?.text.includes('"echo"'))!;
    expect(echoHar.response.content.text).toContain('edited by hand');
    expect(echoHar.response.content.text).not.toContain('echo: exported');
    expect(echoHar._mcpRewind.edited).toBe(true);
    // the body keeps its recorded format (SSE or JSON): what the client would read
    expect(
      echoHar.response.content.text.startsWith('event:') || echoHar.response.content.text.startsWith('data:'),
    ).toBe(echoHar.response.content.mimeType.includes('event-stream'));
    const addHar = entries.find((e) => e.request.postData?.text.includes('"add"'))!;
    expect(addHar._mcpRewind.edited).toBeUndefined(); // untouched entries keep the recorded body
    expect(addHar.response.content.text).toContain('"sum":42');

    await call(t.api, 'export.run', { dir, format: 'file', out: join(out, 'x.json') });
    expect(await readFile(join(out, 'x.json'), 'utf8')).toContain('edited by hand');
    expect(await replayed(join(out, 'x.json'))).toEqual(['edited by hand', '42']);
  });

  it('refuses unsafe output paths, naming the problem, and writes nothing', async () => {
    const t = await app();
    const dir = await recorded();
    const before = (await readdir(dir)).sort();
    expect(await failure(call(t.api, 'export.preview', { dir, format: 'folder', out: join(dir, 'copy') }))).toMatch(
      /^out: .* is inside the source folder/,
    );
    expect(await failure(call(t.api, 'export.run', { dir, format: 'file', out: join(dir, 'c.json') }))).toMatch(
      /inside the source folder/,
    );
    expect(await failure(call(t.api, 'export.run', { dir, format: 'folder', out: dir }))).toMatch(
      /inside the source folder/,
    );
    expect(
      await failure(call(t.api, 'export.run', { dir, format: 'folder', out: join(dir, '..'), overwrite: true })),
    ).toMatch(/contains the source folder/);
    expect((await readdir(dir)).sort()).toEqual(before);

    const busy = await tempDir('rewind-export-busy-');
    await writeFile(join(busy, 'keep.txt'), 'mine');
    expect(await failure(call(t.api, 'export.run', { dir, format: 'folder', out: busy }))).toMatch(
      /^out: the folder .* exists and is not empty; set overwrite/,
    );
    expect(await readdir(busy)).toEqual(['keep.txt']);
    // with overwrite: the old cassette files go, other files stay
    await writeFile(join(busy, '99 old_key.json'), '{}');
    await call(t.api, 'export.run', { dir, format: 'folder', out: busy, overwrite: true });
    expect((await readdir(busy)).sort()).toEqual([...(await distilledFiles(dir)), 'keep.txt'].sort());

    const existing = join(busy, 'keep.txt');
    expect(await failure(call(t.api, 'export.run', { dir, format: 'file', out: existing }))).toMatch(
      /exists; set overwrite/,
    );
    expect(await readFile(existing, 'utf8')).toBe('mine');
    expect(await failure(call(t.api, 'export.run', { dir, format: 'har', out: busy }))).toMatch(
      /is a folder; a HAR export needs a file path/,
    );
    expect(
      await failure(
        call(t.api, 'export.preview', { dir: join(busy, 'nope'), format: 'file', out: join(busy, 'x.json') }),
      ),
    ).toMatch(/^dir: no such folder/);
    expect(await failure(call(t.api, 'export.preview', { dir, format: 'zip' as never, out: 'x' }))).toMatch(/format/);
    // a relative path is resolved against the working directory, and the command keeps it as typed
    const rel = relative(process.cwd(), join(await tempDir('rewind-export-rel-'), 'rel cassette.json'));
    const relPreview = await call(t.api, 'export.preview', { dir, format: 'file', out: rel });
    expect(relPreview.out).toBe(join(process.cwd(), rel));
    expect(relPreview.command).toBe(`npx mcp-rewind@0.0.0-test --replay --cache '${rel}'`);
  });
});

describe('api: cassettes.rename', () => {
  it('renames an entry (and its debug files) keeping n, safe-keys the new key and refuses collisions', async () => {
    const t = await app();
    const dir = await recorded();
    const entries = (await call(t.api, 'cassettes.list', { dir })).entries;
    const echo = entries.find((e) => e.tool === 'echo')!;
    const add = entries.find((e) => e.tool === 'add')!;
    const { entry, renamed } = await call(t.api, 'cassettes.rename', {
      dir,
      file: echo.file,
      key: 'tools_call_echo_my/key',
    });
    expect(renamed).toBe(echo.file);
    expect(entry).toMatchObject({
      n: echo.n,
      key: 'tools_call_echo_my%2Fkey',
      file: `${echo.n} tools_call_echo_my%2Fkey.json`,
      preview: 'echo: exported',
    });
    const names = await readdir(dir);
    expect(names.filter((f) => f.startsWith(`${echo.n} `)).sort()).toEqual(
      ['.json', '.req.json', '.res-head.json', '.res.json'].map((s) => `${echo.n} tools_call_echo_my%2Fkey${s}`).sort(),
    );
    expect(names.some((f) => f.includes(echo.key))).toBe(false);

    // another n may hold the same key (repeated answers): no collision
    const moved = (await call(t.api, 'cassettes.rename', { dir, file: entry.file, key: add.key })).entry;
    expect(moved).toMatchObject({ n: echo.n, key: add.key, tool: 'echo' }); // the tool comes from the entry's name
    // the same file name is a collision
    await writeFile(join(dir, `${echo.n} taken.json`), await readFile(join(dir, moved.file), 'utf8'));
    expect(await failure(call(t.api, 'cassettes.rename', { dir, file: moved.file, key: 'taken' }))).toMatch(
      /^key: "taken" is taken/,
    );
    expect(await readdir(dir)).toContain(moved.file);
    expect(await failure(call(t.api, 'cassettes.rename', { dir, file: moved.file, key: '  ' }))).toMatch(
      /^key: give the new key/,
    );
    expect(await failure(call(t.api, 'cassettes.rename', { dir, file: '../x.json', key: 'y' }))).toMatch(/^file: /);
  });
});
