/**
 * Replay refuses what the recorded server refused, with its status and words (issue 21 item 9): a POST with no
 * session (400), an Accept without both JSON and SSE (406), a session reused after DELETE (server-everything: 400
 * "No valid session ID provided", not replay's own 404), a DELETE to a stateless server (the v2 SDK's
 * createMcpHandler: 405 "Method not allowed."), and with the Python SDK's server (where its venv exists) a batch
 * (400: it takes single messages only) and a DELETE to it stateless (405) — three ways: straight at the server,
 * through record, through replay with the server stopped.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startEverything } from '../fixtures/everything.js';
import { startV2Server } from '../fixtures/v2-server.js';
import { pythonSdkMissing, startPythonServer } from '../helpers/python-sdk.js';
import { removeTempDirs } from '../helpers/temp.js';
import { rawPost, threeWays, type Upstream } from '../helpers/three-ways.js';

afterEach(removeTempDirs);

const INIT = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

/** A refusal as the client sees it: the status and the error (its id left out: the server sends none or null). */
async function refusal(
  answer: Promise<{ status: number; messages: unknown[] }>,
): Promise<{ status: number; error: unknown }> {
  const { status, messages } = await answer;
  return { status, error: (messages[0] as { error?: unknown } | undefined)?.error };
}

async function refusals(url: string): Promise<Record<string, unknown>> {
  const noSession = await refusal(rawPost(url, { jsonrpc: '2.0', id: 2, method: 'tools/list' }));
  const { sessionId } = await rawPost(url, INIT);
  const session = { 'mcp-session-id': sessionId!, 'mcp-protocol-version': '2025-06-18' };
  await rawPost(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, session);
  const listed = await rawPost(url, { jsonrpc: '2.0', id: 3, method: 'tools/list' }, session);
  const wrongAccept = await refusal(
    rawPost(url, { jsonrpc: '2.0', id: 4, method: 'tools/list' }, { ...session, accept: 'application/json' }),
  );
  const ended = await fetch(url, { method: 'DELETE', headers: session });
  const reused = await refusal(rawPost(url, { jsonrpc: '2.0', id: 5, method: 'tools/list' }, session));
  return { noSession, listed: listed.status, wrongAccept, deleted: ended.status, reused };
}

it('server-everything: a POST without a session, a wrong Accept and a session reused after DELETE are refused in replay as the server refused them', async () => {
  const { direct, recorded, replayed } = await threeWays(
    () => startEverything('streamableHttp') as Promise<Upstream>,
    refusals,
  );
  expect(direct).toMatchObject({
    noSession: { status: 400 },
    listed: 200,
    wrongAccept: { status: 406 },
    deleted: 200,
    reused: { status: 400 },
  });
  expect(recorded).toEqual(direct);
  expect(replayed).toEqual(direct);
}, 60_000);

/** A stateless server's session end: no session to end, so a DELETE is refused; what follows still works. */
async function statelessEnd(url: string): Promise<Record<string, unknown>> {
  const opened = await rawPost(url, INIT);
  const head = { 'mcp-protocol-version': '2025-06-18' };
  await rawPost(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, head);
  const ended = await fetch(url, { method: 'DELETE', headers: head });
  const text = await ended.text();
  const after = await rawPost(url, { jsonrpc: '2.0', id: 6, method: 'ping' }, head);
  return {
    issuedSession: opened.sessionId !== undefined,
    deleted: { status: ended.status, error: text ? (JSON.parse(text) as { error?: unknown }).error : undefined },
    after: { status: after.status, messages: after.messages },
  };
}

it('the v2 SDK stateless server: a DELETE is refused in replay as the server refused it (405), and the next request is answered', async () => {
  const { direct, recorded, replayed } = await threeWays(() => startV2Server({ legacy: 'stateless' }), statelessEnd);
  expect(direct).toMatchObject({
    issuedSession: false,
    deleted: { status: 405, error: { message: 'Method not allowed.' } },
    after: { status: 200 },
  });
  expect(recorded).toEqual(direct);
  expect(replayed).toEqual(direct);
}, 60_000);

const missing = pythonSdkMissing();
if (missing) console.warn(`skipping the Python SDK refusals: ${missing}`);

/** A request without a session, a batch and a wrong Accept (in a session when the server issues one), then the session's end, as the client sees each. */
async function batchThenEnd(url: string): Promise<Record<string, unknown>> {
  const noSession = await refusal(rawPost(url, { jsonrpc: '2.0', id: 2, method: 'tools/list' }));
  const opened = await rawPost(url, INIT);
  const head = {
    'mcp-protocol-version': '2025-06-18',
    ...(opened.sessionId ? { 'mcp-session-id': opened.sessionId } : {}),
  };
  await rawPost(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, head);
  const batch = await refusal(
    rawPost(
      url,
      [
        { jsonrpc: '2.0', id: 7, method: 'tools/list' },
        { jsonrpc: '2.0', id: 8, method: 'ping' },
      ],
      head,
    ),
  );
  const single = await rawPost(url, { jsonrpc: '2.0', id: 9, method: 'ping' }, head);
  const wrongAccept = await refusal(
    rawPost(url, { jsonrpc: '2.0', id: 10, method: 'ping' }, { ...head, accept: 'application/json' }),
  );
  const ended = await fetch(url, { method: 'DELETE', headers: head });
  const text = await ended.text();
  return {
    noSession,
    issuedSession: opened.sessionId !== undefined,
    batch,
    single: { status: single.status, messages: single.messages },
    wrongAccept,
    deleted: { status: ended.status, error: text ? (JSON.parse(text) as { error?: unknown }).error : undefined },
  };
}

describe.skipIf(missing !== undefined)('the Python SDK server', () => {
  for (const stateless of [false, true]) {
    it(`${stateless ? 'stateless' : 'stateful'}: a batch is refused in replay as the server refused it (400)${stateless ? ', and a DELETE (405)' : ''}`, async () => {
      const { direct, recorded, replayed } = await threeWays(
        () => startPythonServer(stateless ? ['--stateless'] : []),
        batchThenEnd,
      );
      expect(direct).toMatchObject({
        noSession: { status: stateless ? 200 : 400 },
        issuedSession: !stateless,
        batch: { status: 400, error: { message: expect.stringContaining('Validation error') } },
        single: { status: 200 },
        wrongAccept: { status: 406 },
        deleted: { status: stateless ? 405 : 200 },
      });
      expect(recorded).toEqual(direct);
      expect(replayed).toEqual(direct);
    }, 60_000);
  }
});
