/**
 * The bench's MCP traffic: one tool ("search"), its arguments for call #i, the canned result every server answers
 * with, and a cassette folder in mcp-rewind's layout holding N recorded calls.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { buildResultHasher } from '../src/main/engine/cassette/hash.js';
import { keyFor } from '../src/main/engine/cassette/keys.js';

export const TOOL = 'search';
export const PROTOCOL_VERSION = '2025-06-18';

export const argumentsFor = (i: number): Record<string, unknown> => ({
  query: `quarterly revenue report ${i}`,
  limit: 10,
  includeArchived: false,
});

const FILLER = 'Revenue grew 12% quarter over quarter, driven by subscriptions; churn fell to 2.1%. '.repeat(4);

/** A realistic tools/call result (~450 bytes of JSON, or about `bytes`); `i` makes each recorded answer distinct. */
export const toolResult = (i: number, bytes = 0): Record<string, unknown> => ({
  content: [
    {
      type: 'text',
      text: `Result ${i}: ${bytes > FILLER.length ? FILLER.repeat(Math.ceil(bytes / FILLER.length)).slice(0, bytes) : FILLER}`,
    },
  ],
});

/** What a real server answers to initialize (what `1 initialize.json` holds). */
export const INITIALIZE_RESULT = {
  protocolVersion: PROTOCOL_VERSION,
  capabilities: {
    tools: { listChanged: true },
    resources: { subscribe: true, listChanged: true },
    prompts: { listChanged: true },
    logging: {},
  },
  serverInfo: { name: 'bench-server', title: 'Bench server', version: '1.0.0' },
  instructions: 'Search the quarterly reports.',
};

export const callRequest = (i: number, id: number) => ({
  jsonrpc: '2.0' as const,
  id,
  method: 'tools/call',
  params: { name: TOOL, arguments: argumentsFor(i) },
});

/** Writes `1 initialize.json` and `count` files `<n> tools_call_search_<hash>.json` (calls 0..count-1), each result about `resultBytes` long. */
export async function generateCassette(dir: string, count: number, resultBytes = 0): Promise<void> {
  await mkdir(dir, { recursive: true });
  const hashResult = buildResultHasher();
  await writeFile(join(dir, '1 initialize.json'), JSON.stringify(INITIALIZE_RESULT, null, 2));
  const BATCH = 256; // bounded parallel writes
  for (let start = 0; start < count; start += BATCH) {
    const writes: Promise<void>[] = [];
    for (let i = start; i < Math.min(count, start + BATCH); i++) {
      const request = callRequest(i, i);
      const key = keyFor(request);
      const result = toolResult(i, resultBytes);
      const entry = {
        arguments: request.params.arguments,
        result,
        resultHash: hashResult(result),
        recordedAt: '2025-01-01T00:00:00.000Z',
      };
      writes.push(writeFile(join(dir, `${i + 2} ${key}.json`), JSON.stringify(entry, null, 2)));
    }
    await Promise.all(writes);
  }
}

/** The 2026-07-28 revision: protocol fields in every request's `_meta`, and the standard headers that mirror them. */
export const MODERN_VERSION = '2026-07-28';
const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': MODERN_VERSION,
  'io.modelcontextprotocol/clientInfo': { name: 'mcp-rewind-bench', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};
export const MODERN_HEADERS = { 'mcp-protocol-version': MODERN_VERSION, 'mcp-method': 'tools/call', 'mcp-name': TOOL };

/** Call #i as a 2026-07-28 client sends it (no session: the revision and the client ride in `_meta`). */
export const modernCallRequest = (i: number, id: number) => ({
  jsonrpc: '2.0' as const,
  id,
  method: 'tools/call',
  params: { name: TOOL, arguments: argumentsFor(i), _meta: MODERN_META },
});

/** Every tenth call's recorded answer is a JSON-RPC error (code, message, data), as a server sends it. */
export const isErrorCall = (i: number): boolean => i % 10 === 9;
const errorOf = (i: number) => ({
  code: -32602,
  message: `Invalid arguments for tool ${TOOL}: report ${i} is archived`,
  data: { report: i },
});

/**
 * A cassette of both revisions and error entries: each of the `calls` argument sets recorded twice — by a 2025 client
 * (protocolVersion 2025-06-18) and by a 2026-07-28 client (its result carries resultType and serverInfo) — so every
 * key holds two entries of different revisions, and every tenth call was answered with an error; plus initialize and
 * server/discover. `calls` = 5,000 makes a 10,000-entry cassette.
 */
export async function generateMixedCassette(dir: string, calls: number): Promise<void> {
  await mkdir(dir, { recursive: true });
  const hashResult = buildResultHasher();
  await writeFile(join(dir, '1 initialize.json'), JSON.stringify(INITIALIZE_RESULT, null, 2));
  const discover = {
    $rewind: 1,
    method: 'server/discover',
    params: {},
    result: {
      supportedVersions: [MODERN_VERSION],
      capabilities: INITIALIZE_RESULT.capabilities,
      resultType: 'complete',
    },
    protocolVersion: MODERN_VERSION,
  };
  await writeFile(
    join(dir, `2 ${keyFor({ method: 'server/discover', params: {} })}.json`),
    JSON.stringify(discover, null, 2),
  );
  const serverInfo = { 'io.modelcontextprotocol/serverInfo': INITIALIZE_RESULT.serverInfo };
  const BATCH = 256;
  for (let start = 0; start < calls; start += BATCH) {
    const writes: Promise<void>[] = [];
    for (let i = start; i < Math.min(calls, start + BATCH); i++) {
      const request = callRequest(i, i);
      const key = keyFor(request);
      const legacyResult = toolResult(i);
      const modernResult = { ...toolResult(i), resultType: 'complete', _meta: serverInfo };
      const answer = (result: Record<string, unknown>) =>
        isErrorCall(i) ? { error: errorOf(i) } : { result, resultHash: hashResult(result) };
      const legacy = {
        name: TOOL,
        arguments: request.params.arguments,
        ...answer(legacyResult),
        protocolVersion: PROTOCOL_VERSION,
        framing: { type: 'json' },
        recordedAt: '2025-01-01T00:00:00.000Z',
      };
      const modern = {
        name: TOOL,
        arguments: request.params.arguments,
        ...answer(modernResult),
        protocolVersion: MODERN_VERSION,
        framing: { type: 'json' },
        recordedAt: '2026-08-01T00:00:00.000Z',
      };
      writes.push(writeFile(join(dir, `${3 + 2 * i} ${key}.json`), JSON.stringify(legacy, null, 2)));
      writes.push(writeFile(join(dir, `${4 + 2 * i} ${key}.json`), JSON.stringify(modern, null, 2)));
    }
    await Promise.all(writes);
  }
}
