/**
 * Issue 21 item 3: an `initialize` carrying a stale `Mcp-Session-Id` (one the client DELETEd, or one never issued)
 * is refused by the server and by proxy-only; record used to drop the header for an initialize and answered 200 with
 * a new session. And what follows from it (item 9's reuse after DELETE): the server's refusal of an unknown session
 * is recorded — server-everything says 400 without an id, the v2 SDK server 404 — and replay gives it back.
 * Run direct, through record and through replay with the server stopped, against both, and the Python SDK's server
 * where its venv exists.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { startEverything } from '../fixtures/everything.js';
import { startV2Server } from '../fixtures/v2-server.js';
import { pythonSdkMissing, startPythonServer } from '../helpers/python-sdk.js';
import { removeTempDirs } from '../helpers/temp.js';
import { rawPost, threeWays, type Upstream } from '../helpers/three-ways.js';

afterAll(removeTempDirs);

const HEAD = { 'mcp-protocol-version': '2025-11-25' };
const initialize = (id: number) => ({
  jsonrpc: '2.0',
  id,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'stale-client', version: '1.0.0' } },
});

/** status, and the error of the answer (what a client reads of a refusal: the id of an HTTP-level error varies) */
async function refusal(url: string, body: unknown, sessionId: string) {
  const answer = await rawPost(url, body, { ...HEAD, 'mcp-session-id': sessionId });
  const first = answer.messages[0] as { error?: unknown; result?: { serverInfo?: unknown } } | undefined;
  return {
    status: answer.status,
    issuedSession: answer.sessionId !== undefined,
    error: first?.error,
    initialized: first?.result?.serverInfo !== undefined,
  };
}

async function scenario(url: string) {
  const opened = await rawPost(url, initialize(1), HEAD);
  const id = opened.sessionId as string;
  await rawPost(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, { ...HEAD, 'mcp-session-id': id });
  const ended = await fetch(url, { method: 'DELETE', headers: { ...HEAD, 'mcp-session-id': id } });
  return {
    opened: opened.status,
    ended: ended.status,
    staleInitialize: await refusal(url, initialize(2), id),
    neverIssuedInitialize: await refusal(url, initialize(3), 'never-issued-session'),
    reuseAfterDelete: await refusal(url, { jsonrpc: '2.0', id: 4, method: 'tools/list' }, id),
  };
}

const missing = pythonSdkMissing();
if (missing) console.warn(`skipping the Python SDK server's stale sessions: ${missing}`);

const SERVERS: { name: string; start: () => Promise<Upstream>; status: number; skip?: boolean }[] = [
  { name: 'server-everything', start: () => startEverything('streamableHttp'), status: 400 },
  { name: 'the v2 SDK server', start: () => startV2Server({ legacy: 'stateful' }), status: 404 },
  { name: 'the Python SDK server', start: () => startPythonServer(), status: 404, skip: missing !== undefined },
];

describe('an initialize with a stale Mcp-Session-Id', () => {
  for (const server of SERVERS) {
    it.skipIf(server.skip === true)(
      `is refused as ${server.name} refuses it: direct, through record, through replay (server stopped)`,
      async () => {
        const { direct, recorded, replayed } = await threeWays(server.start, scenario);
        expect(direct.staleInitialize).toMatchObject({
          status: server.status,
          issuedSession: false,
          initialized: false,
        });
        expect(direct.neverIssuedInitialize.status).toBe(server.status);
        expect(recorded).toEqual(direct);
        expect(replayed).toEqual(direct);
      },
    );
  }
});
