/**
 * Older protocol versions are negotiated in replay as the recorded server negotiated them (issue 21 item 11): a
 * cassette recorded by a client of the latest 2025 revision, offered 2024-11-05, 2025-03-26 and 2025-06-18, answers
 * each as asked — as the server does straight — not the recorded 2025-11-25. And a cassette that holds the offers
 * themselves answers each with the version the server gave for it: direct, through record, through replay with the
 * server stopped. Real peers: the SDK v1 fixture server and client, server-everything, the v2 SDK server, the Python SDK
 * server (where its venv exists).
 */
import { afterEach, expect, it } from 'vitest';
import { startProxy } from '../../src/main/engine/proxy.js';
import { connectClient } from '../fixtures/client.js';
import { startEverything } from '../fixtures/everything.js';
import { startSdkServer } from '../fixtures/sdk-server.js';
import { startV2Server } from '../fixtures/v2-server.js';
import { pythonSdkMissing, startPythonServer } from '../helpers/python-sdk.js';
import { removeTempDirs, tempDir } from '../helpers/temp.js';
import { rawPost, threeWays, type Upstream } from '../helpers/three-ways.js';

afterEach(removeTempDirs);

const OFFERS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'];

async function negotiated(url: string): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const version of OFFERS) {
    const answer = await rawPost(url, {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    out.push([
      version,
      answer.status,
      (answer.messages[0] as { result?: { protocolVersion?: unknown } }).result?.protocolVersion,
    ]);
  }
  return out;
}

const missing = pythonSdkMissing();
if (missing) console.warn(`skipping the Python SDK server's negotiation: ${missing}`);

const SERVERS: { name: string; start: () => Promise<Upstream>; skip?: boolean }[] = [
  { name: 'SDK v1 fixture server', start: (): Promise<Upstream> => startSdkServer() },
  { name: 'server-everything', start: (): Promise<Upstream> => startEverything('streamableHttp') as Promise<Upstream> },
  { name: 'v2 SDK server', start: (): Promise<Upstream> => startV2Server({ legacy: 'stateful' }) },
  { name: 'Python SDK server', start: () => startPythonServer(), skip: missing !== undefined },
];

for (const server of SERVERS) {
  it.skipIf(server.skip === true)(
    `${server.name}: each older offer is answered as asked in replay of a cassette recorded at the latest revision`,
    async () => {
      const upstream = await server.start();
      const cacheDir = await tempDir();
      const direct = await negotiated(upstream.url);
      const recorder = await startProxy({ mode: 'record', upstreamUrl: upstream.url, cacheDir });
      const c = await connectClient(recorder.url); // the SDK client offers the latest revision only
      await c.close();
      await recorder.flush();
      await recorder.close();
      await upstream.close();
      const replayer = await startProxy({ mode: 'replay', cacheDir });
      try {
        expect(direct).toEqual(OFFERS.map((v) => [v, 200, v]));
        expect(await negotiated(replayer.url)).toEqual(direct);
      } finally {
        await replayer.close();
      }
    },
    60_000,
  );
}

for (const server of SERVERS) {
  it.skipIf(server.skip === true)(
    `${server.name}: each offer recorded is answered in replay with the version the server gave for it (three ways)`,
    async () => {
      const { direct, recorded, replayed } = await threeWays(server.start, negotiated);
      expect(direct).toEqual(OFFERS.map((v) => [v, 200, v]));
      expect(recorded).toEqual(direct);
      expect(replayed).toEqual(direct);
    },
    60_000,
  );
}
