/**
 * 100,000-deep JSON (security issue, third pass, item 8). JSON.parse takes it, but what walks the value afterwards
 * recurses: replay answered HTTP 500 (JSON.stringify's RangeError), and a file that failed to open stayed listed in
 * the UI and in timeline.json. Now every file and API input is measured before it is parsed (src/shared/json-depth.ts)
 * and refused with an error naming the file. Through the real surfaces: the built CLI as a process (build first), real
 * HTTP, the UI's WebSocket API as the browser shell serves it, raw WebSocket frames.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { keyFor } from '../src/main/engine/cassette/keys.js';
import { refusal, runCli, uiApi } from './helpers/hostile.js';
import { startCli } from './helpers/procfs.js';
import { removeTempDirs, tempDir } from './helpers/temp.js';

const DEPTH = 100_000;
const DEEP = '['.repeat(DEPTH) + ']'.repeat(DEPTH);
const NESTED = /JSON nested deeper than 1000 levels/;

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const thing of open.splice(0).reverse()) await thing.close().catch(() => {});
  await removeTempDirs();
});
const kept = <T extends { close(): Promise<void> }>(thing: T): T => (open.push(thing), thing);

const INIT = { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 's', version: '1' } };
const callKey = (name: string): string => keyFor({ method: 'tools/call', params: { name, arguments: {} } });
/** a tools/call entry whose result holds the deep array */
const deepEntry = `{"name":"deep","arguments":{},"result":{"content":[{"type":"text","text":"x"}],"deep":${DEEP}}}`;
const honestEntry = JSON.stringify({
  name: 'echo',
  arguments: {},
  result: { content: [{ type: 'text', text: 'honest' }] },
});

/** A folder (initialize, an honest call, the deep call), the same as a single file, and a HAR whose answer is deep. */
async function deepInputs(): Promise<{ folder: string; file: string; har: string; root: string }> {
  const root = await tempDir('rewind-depth-');
  const folder = path.join(root, 'folder');
  mkdirSync(folder);
  writeFileSync(path.join(folder, '1 initialize.json'), JSON.stringify(INIT));
  writeFileSync(path.join(folder, `2 ${callKey('echo')}.json`), honestEntry);
  writeFileSync(path.join(folder, `3 ${callKey('deep')}.json`), deepEntry);
  const file = path.join(root, 'deep.json');
  const entries = `[{"n":1,"key":"initialize","entry":${JSON.stringify(INIT)}},{"n":2,"key":"${callKey('deep')}","entry":${deepEntry}}]`;
  writeFileSync(
    file,
    `{"format":"mcp-rewind-cassette","version":1,"exportedAt":"2026-01-01T00:00:00.000Z","entries":${entries}}`,
  );
  const har = path.join(root, 'deep.har');
  const request = {
    method: 'POST',
    url: 'http://x/mcp',
    headers: [],
    postData: { mimeType: 'application/json', text: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}' },
  };
  const response = {
    status: 200,
    headers: [],
    content: { mimeType: 'application/json', text: `{"jsonrpc":"2.0","id":1,"result":{"tools":${DEEP}}}` },
  };
  writeFileSync(
    har,
    JSON.stringify({
      log: { version: '1.2', entries: [{ startedDateTime: '2026-01-01T00:00:00.000Z', time: 1, request, response }] },
    }),
  );
  return { folder, file, har, root };
}

async function post(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; text: string }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

describe('a cassette entry nested 100,000 deep', () => {
  it('replay (the CLI as a process) answers its call with a JSON-RPC error, not HTTP 500, logs which file, and keeps serving', async () => {
    const { folder } = await deepInputs();
    const cli = kept(await startCli(['--replay', '--cache', folder]));
    const init = await post(cli.url, {
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    });
    const session = {
      'mcp-session-id': init.headers.get('mcp-session-id') ?? '',
      'mcp-protocol-version': '2025-06-18',
    };
    const deep = await post(
      cli.url,
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'deep', arguments: {} } },
      session,
    );
    expect(deep.status).toBe(200);
    expect(JSON.parse(deep.text)).toMatchObject({
      id: 1,
      error: { message: expect.stringMatching(/no recorded answer/) },
    });
    const honest = await post(
      cli.url,
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: {} } },
      session,
    );
    expect(JSON.parse(honest.text)).toMatchObject({ id: 2, result: { content: [{ text: 'honest' }] } });
    expect(cli.stderr()).toContain(`ignoring 3 ${callKey('deep')}.json: JSON nested deeper than 1000 levels`);
    expect(cli.stderr()).not.toMatch(/RangeError|internal error/);
  });

  it('a single-file cassette holding one is refused at start, naming the file; export leaves the entry out, naming it', async () => {
    const { folder, file, root } = await deepInputs();
    const replay = await runCli(['--replay', '--cache', file, '--port', '0']);
    expect(replay.code).toBe(1);
    expect(replay.stderr).toContain(`cassette ${file}: not a readable JSON file: JSON nested deeper than 1000 levels`);
    expect(replay.stderr).not.toMatch(/RangeError|at /);
    const exported = await runCli([
      'export',
      '--cache',
      folder,
      '--out',
      path.join(root, 'out.json'),
      '--har',
      path.join(root, 'out.har'),
    ]);
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stderr).toContain(`ignoring 3 ${callKey('deep')}.json: JSON nested deeper than 1000 levels`);
    expect(JSON.parse(readFileSync(path.join(root, 'out.json'), 'utf8')).entries).toHaveLength(2);
  });
});

describe('the UI', () => {
  it('refuses to open a deep single file, HAR or folder, naming it, and keeps none of them listed or in timeline.json', async () => {
    const { file, har, root } = await deepInputs();
    const onlyDeep = path.join(root, 'only-deep');
    mkdirSync(onlyDeep);
    writeFileSync(path.join(onlyDeep, `1 ${callKey('deep')}.json`), deepEntry); // a folder with nothing else
    const ui = await uiApi();
    for (const source of [file, har, onlyDeep]) {
      const message = await refusal(ui.api.call('sources.open', { path: source }));
      expect(message, source).toContain(source);
      expect(message, source).toMatch(NESTED);
    }
    expect(await ui.api.call('sources.list', {})).toEqual([]);
    expect(await ui.api.call('app.info', {})).toMatchObject({ shell: 'browser' }); // still serving
    await ui.close();
    const timeline = path.join(ui.dataDir, 'timeline.json');
    expect(existsSync(timeline)).toBe(true);
    expect(JSON.parse(readFileSync(timeline, 'utf8')).sources).toEqual([]);
  });

  it('refuses deep API input: a hand-edited entry, and a WebSocket frame (answered by its id; the connection stays usable)', async () => {
    const { folder } = await deepInputs();
    const ui = kept(await uiApi());
    expect(
      await refusal(
        ui.api.call('cassettes.write', { dir: folder, file: `2 ${callKey('echo')}.json`, text: deepEntry }),
      ),
    ).toMatch(/^text: JSON nested deeper than 1000 levels/);
    expect(readFileSync(path.join(folder, `2 ${callKey('echo')}.json`), 'utf8')).toBe(honestEntry);

    const ws = new WebSocket(ui.url, ui.protocols);
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    const answers: Array<{ id?: number; ok?: boolean; error?: { message: string } }> = [];
    ws.on('message', (data) => {
      const frame = JSON.parse(data.toString()) as (typeof answers)[number];
      if ('id' in frame) answers.push(frame);
    });
    ws.send(`{"id":7,"command":"schema.check","input":{"schema":{"type":"array"},"value":${DEEP}}}`);
    ws.send('{"id":8,"command":"app.info","input":{}}');
    await expect.poll(() => answers.length, { timeout: 5_000 }).toBe(2);
    expect(answers.find((a) => a.id === 7)).toEqual({
      id: 7,
      ok: false,
      error: { message: 'malformed frame: JSON nested deeper than 1000 levels' },
    });
    expect(answers.find((a) => a.id === 8)).toMatchObject({ id: 8, ok: true });
    ws.close();
  });
});
