import { afterEach, describe, expect, it } from 'vitest';
import { closedPort } from '../helpers/ports.js';
import { startEverything } from '../fixtures/everything.js';
import { tempDir } from '../helpers/temp.js';
import { app, call, cleanup, client, keep, textOf } from './harness.js';

afterEach(cleanup);

// The app opens a proxy's upstream as the CLI does (openUpstream: detect, bridge, probe).
describe('a UI proxy opens its upstream like the CLI', () => {
  it('detects a legacy HTTP+SSE server and bridges it (server-everything over SSE)', async () => {
    const { api } = await app();
    const ev = keep(await startEverything('sse'));
    const info = await call(api, 'proxies.create', {
      mode: 'record',
      upstreamUrl: ev.url,
      cacheDir: await tempDir(),
      name: 'legacy',
    });
    expect(info.state).toBe('running');
    const c = await client(info.url as string);
    expect(textOf(await c.client.callTool({ name: 'echo', arguments: { message: 'over sse' } }))).toBe(
      'Echo: over sse',
    );
    await expect
      .poll(async () =>
        (await call(api, 'traffic.snapshot', {})).filter((e) => e.tool === 'echo').map((e) => e.cassette),
      )
      .toEqual(['recorded']);
  });

  it('an upstream that does not answer MCP: the proxy is listed as failed, naming the upstream', async () => {
    const { api } = await app();
    const url = `http://127.0.0.1:${await closedPort()}/mcp`;
    const info = await call(api, 'proxies.create', { mode: 'proxy-only', upstreamUrl: url });
    expect(info.state).toBe('failed');
    expect(info.error).toContain(url);
    expect(info.error).toContain('did not answer an MCP initialize');
  });
});
