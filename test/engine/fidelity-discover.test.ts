/**
 * `server/discover` is matched without its `_meta` (issue 21 item 14): the v2 SDK client records its discover with its
 * own clientInfo, and a discover from another client — the conformance suite's dns-rebinding valid-host request, with
 * its Host and Origin — is answered in replay with the server stopped as the server answered it (200), not refused.
 * The suite's discover is also sent through a recording proxy of its own (so the replayed cassette never holds it).
 */
import { afterEach, expect, it } from 'vitest';
import { startProxy } from '../../src/main/engine/proxy.js';
import { connectV2Client } from '../fixtures/v2-client.js';
import { startV2Server } from '../fixtures/v2-server.js';
import { removeTempDirs, tempDir } from '../helpers/temp.js';

afterEach(removeTempDirs);

const V = '2026-07-28';

/** The suite's request (conformance 0.2.0-alpha.12, dns-rebinding-protection): another clientInfo, a localhost Origin. */
async function suiteDiscover(url: string) {
  const host = new URL(url).host;
  const body = {
    jsonrpc: '2.0',
    id: 1,
    method: 'server/discover',
    params: {
      _meta: {
        'io.modelcontextprotocol/protocolVersion': V,
        'io.modelcontextprotocol/clientInfo': { name: 'conformance-dns-rebinding-test', version: '1.0.0' },
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    },
  };
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      origin: `http://${host}`,
      'mcp-protocol-version': V,
      'mcp-method': 'server/discover',
    },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  const data = text.startsWith('{') ? text : (/^data: (.+)$/m.exec(text)?.[1] ?? '');
  return { status: res.status, result: (JSON.parse(data) as { result?: { supportedVersions?: unknown } }).result };
}

it('a server/discover with another clientInfo than the recorded one is answered in replay as live', async () => {
  const server = await startV2Server({ legacy: 'stateful' });
  const cacheDir = await tempDir();
  let origin = '';
  const allowedOrigins = () => [origin];
  try {
    const direct = await suiteDiscover(server.url);
    const aside = await startProxy({
      mode: 'record',
      upstreamUrl: server.url,
      cacheDir: await tempDir(),
      allowedOrigins,
    });
    origin = new URL(aside.url).origin;
    const recorded = await suiteDiscover(aside.url).finally(() => aside.close());
    const recorder = await startProxy({ mode: 'record', upstreamUrl: server.url, cacheDir, allowedOrigins });
    origin = new URL(recorder.url).origin;
    const c = await connectV2Client(recorder.url, { negotiation: 'auto' });
    expect(c.client.getProtocolEra()).toBe('modern'); // it discovered the server: server/discover is recorded
    await c.close();
    await recorder.flush();
    await recorder.close();
    await server.close();
    const replayer = await startProxy({ mode: 'replay', cacheDir, allowedOrigins });
    origin = new URL(replayer.url).origin;
    try {
      expect(direct).toMatchObject({ status: 200, result: { supportedVersions: [V] } });
      expect(recorded).toEqual(direct);
      expect(await suiteDiscover(replayer.url)).toEqual(direct);
    } finally {
      await replayer.close();
    }
  } finally {
    await server.close().catch(() => {});
  }
}, 60_000);
