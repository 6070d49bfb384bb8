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

export const argumentsFor = (i: number): Record<string, unknown> => ({ query: `quarterly revenue report ${i}`, limit: 10, includeArchived: false });

const FILLER = 'Revenue grew 12% quarter over quarter, driven by subscriptions; churn fell to 2.1%. '.repeat(4);

/** A realistic tools/call result (~450 bytes of JSON, or about `bytes`); `i` makes each recorded answer distinct. */
export const toolResult = (i: number, bytes = 0): Record<string, unknown> => ({
  content: [{ type: 'text', text: `Result ${i}: ${bytes > FILLER.length ? FILLER.repeat(Math.ceil(bytes / FILLER.length)).slice(0, bytes) : FILLER}` }],
});

/** What a real server answers to initialize (what `1 initialize.json` holds). */
export const INITIALIZE_RESULT = {
  protocolVersion: PROTOCOL_VERSION,
  capabilities: { tools: { listChanged: true }, resources: { subscribe: true, listChanged: true }, prompts: { listChanged: true }, logging: {} },
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
      const entry = { arguments: request.params.arguments, result, resultHash: hashResult(result), recordedAt: '2025-01-01T00:00:00.000Z' };
      writes.push(writeFile(join(dir, `${i + 2} ${key}.json`), JSON.stringify(entry, null, 2)));
    }
    await Promise.all(writes);
  }
}
