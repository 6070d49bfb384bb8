import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { bridgeProtocols, createWebSocketApi, type WebSocketLike } from '../../src/shared/api-client.js';
import { MAX_FRAME_BYTES, MAX_PAYLOAD_BYTES, PART_CHARS } from '../../src/shared/api-frames.js';
import type { ServerFrame } from '../../src/shared/api.js';
import { startWebShell, type ApiHandlerTable, type WebShell } from '../../src/main/web/web-shell.js';
import { removeTempDirs, tempDir } from '../helpers/temp.js';

/**
 * Commands bigger than one WebSocket frame (issue 25 item 2): the client sends them in parts, the bridge joins them,
 * every frame stays under the 1 MiB frame cap; a payload over the 64 MB limit is refused with that reason — by the
 * client before sending, and by the bridge at the first part of one that says so — and the connection stays up.
 * The handler table is a tiny echo (the transport is under test); the real one is in web-shell-real.test.ts.
 */

const received: unknown[] = [];
const echo: ApiHandlerTable = {
  async call(command, input) {
    received.push(input);
    if (command === 'echo') return input;
    throw new Error(`unknown command "${command}"`);
  },
  on: () => () => {},
};

let shell: WebShell | undefined;
const closers: Array<() => void> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) close();
  await shell?.close();
  shell = undefined;
  received.length = 0;
});
afterAll(removeTempDirs);

async function start(): Promise<WebShell> {
  const dir = await tempDir('large-frames-renderer-');
  mkdirSync(join(dir, 'assets'));
  writeFileSync(join(dir, 'index.html'), '<!doctype html><title>fixture</title>');
  shell = await startWebShell({ rendererDir: dir, handlers: echo });
  return shell;
}

/** the renderer's client over the `ws` package, counting the size of every frame it sends */
function client(s: WebShell): { api: ReturnType<typeof createWebSocketApi>; sent: number[] } {
  const sent: number[] = [];
  class Counting extends WebSocket {
    override send(data: string): void {
      sent.push(Buffer.byteLength(data));
      super.send(data);
    }
  }
  const api = createWebSocketApi({
    url: `ws://127.0.0.1:${s.port}/api`,
    protocols: bridgeProtocols(s.token),
    WebSocket: Counting as unknown as new (url: string) => WebSocketLike,
  });
  closers.push(() => api.close());
  return { api, sent };
}

describe('web shell: commands larger than a frame', () => {
  it('sends a 5 MB command in parts under the frame cap; the handler gets it whole and the 5 MB answer comes back', async () => {
    const { api, sent } = client(await start());
    // non-ASCII and characters JSON escapes, so parts are cut inside escapes and multi-byte characters
    const text = `start ${'é"\\\n😀0123456789'.repeat(300_000)} end`;
    const answer = (await api.call('echo' as never, { text } as never)) as { text: string };
    expect(answer.text).toBe(text);
    expect(received).toEqual([{ text }]);
    expect(sent.length).toBeGreaterThan(5);
    expect(Math.max(...sent)).toBeLessThanOrEqual(MAX_FRAME_BYTES);
    // a small call on the same connection still goes in one frame
    sent.length = 0;
    expect(await api.call('echo' as never, { small: 1 } as never)).toEqual({ small: 1 });
    expect(sent).toHaveLength(1);
  });

  it('refuses a payload over 64 MB before sending it, saying so; the connection serves on', async () => {
    const { api, sent } = client(await start());
    expect(await api.call('echo' as never, { ready: true } as never)).toEqual({ ready: true });
    sent.length = 0;
    const big = 'x'.repeat(MAX_PAYLOAD_BYTES + 1024);
    await expect(api.call('echo' as never, { big } as never)).rejects.toThrow(
      /^"echo" not sent: payload 64\.0 MB exceeds the 64 MB limit of the connection to mcp-rewind$/,
    );
    expect(sent).toEqual([]);
    expect(await api.call('echo' as never, { after: true } as never)).toEqual({ after: true });
  });

  it('the bridge refuses an upload that says it is over the limit at its first part, drops its other parts, serves on', async () => {
    const s = await start();
    const ws = new WebSocket(`ws://127.0.0.1:${s.port}/api`, bridgeProtocols(s.token), { origin: s.origin });
    closers.push(() => ws.terminate());
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    const replies: ServerFrame[] = [];
    ws.on('message', (data) => replies.push(JSON.parse(data.toString()) as ServerFrame));
    const bytes = 70 * 1024 * 1024;
    const parts = Math.ceil(bytes / PART_CHARS);
    for (let part = 0; part < 3; part++) ws.send(JSON.stringify({ id: 5, part, parts, bytes, data: 'x'.repeat(1000) }));
    // out of order: a part of an upload that never started
    ws.send(JSON.stringify({ id: 6, part: 2, parts: 3, bytes: 3000, data: 'x' }));
    ws.send(JSON.stringify({ id: 7, command: 'echo', input: { still: 'up' } }));
    await expect.poll(() => replies.length).toBe(3);
    expect(replies).toEqual([
      { id: 5, ok: false, error: { message: 'payload 70 MB exceeds the 64 MB limit of the connection to mcp-rewind' } },
      { id: 6, ok: false, error: { message: 'malformed part: part 2 of command 6, which did not start' } },
      { id: 7, ok: true, output: { still: 'up' } },
    ]);
    expect(received).toEqual([{ still: 'up' }]);
  });
});
