import { afterEach, describe, expect, it } from 'vitest';
import { readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startProxy } from '../src/main/engine/proxy.js';
import { toProxyOptions, type RawOptions } from '../src/main/cli/options.js';
import { buildProgram } from '../src/main/cli/program.js';
import { parseDistilled } from '../src/shared/cassette/entry.js';
import { jsonSchemas } from '../src/shared/json-schemas.js';
import { RulesFileSchema } from '../src/shared/rules/schema.js';
import { CASSETTE_ENTRY_SCHEMA_URL, RULES_SCHEMA_URL, SCHEMA_BASE_URL } from '../src/shared/schema-urls.js';
import { connectClient, type ConnectedClient } from './fixtures/client.js';
import { startEverything } from './fixtures/everything.js';
import { startSdkServer } from './fixtures/sdk-server.js';
import { compileSchema, loadSchema } from './helpers/json-schema.js';
import { copyOf, distilledFiles, removeTempDirs, tempDir } from './helpers/temp.js';

const REPO = fileURLToPath(new URL('..', import.meta.url));
const MCP_REWIND_CACHE = join(REPO, 'test/fixtures/mcp-rewind-cache');
const entrySchema = compileSchema(loadSchema('cassette-entry.schema.json'));
const rulesSchema = compileSchema(loadSchema('rules.schema.json'));

const open: Array<{ close(): Promise<void> }> = [];
function keep<T extends { close(): Promise<void> }>(thing: T): T {
  open.push(thing);
  return thing;
}
afterEach(async () => {
  for (const thing of open.splice(0).reverse()) await thing.close().catch(() => {});
  await removeTempDirs();
});

async function entries(dir: string): Promise<Array<{ file: string; data: Record<string, unknown> }>> {
  return Promise.all(
    (await distilledFiles(dir)).map(async (file) => ({
      file,
      data: JSON.parse(await readFile(join(dir, file), 'utf8')) as Record<string, unknown>,
    })),
  );
}

/** The package's own files list (package.json "files"), as npm pack reads it. */
async function packageFiles(): Promise<string[]> {
  return (JSON.parse(await readFile(join(REPO, 'package.json'), 'utf8')) as { files: string[] }).files;
}

describe('published JSON Schemas (schemas/)', () => {
  it('are exactly what the zod schemas generate (npm run build writes them)', async () => {
    for (const [name, schema] of Object.entries(jsonSchemas())) {
      expect(JSON.parse(await readFile(join(REPO, 'schemas', name), 'utf8')), name).toEqual(schema);
    }
  });

  it('have the $id that written files reference, inside a folder the package publishes', async () => {
    expect(loadSchema('cassette-entry.schema.json').$id).toBe(CASSETTE_ENTRY_SCHEMA_URL);
    expect(loadSchema('rules.schema.json').$id).toBe(RULES_SCHEMA_URL);
    for (const url of [CASSETTE_ENTRY_SCHEMA_URL, RULES_SCHEMA_URL]) {
      expect(url.startsWith(SCHEMA_BASE_URL)).toBe(true);
      expect(SCHEMA_BASE_URL).toMatch(/\/npm\/mcp-rewind\/schemas\/$/); // the package root + schemas/
    }
    expect(await packageFiles()).toContain('schemas/');
  });
});

describe('cassette entry schema', () => {
  it('accepts every entry of a broad recording (server-everything and the SDK fixture), $schema only where it is safe', async () => {
    const everything = keep(await startEverything('streamableHttp'));
    const sdk = keep(await startSdkServer());
    const dir = await tempDir();
    const dir2 = await tempDir();
    const rec = keep(await startProxy({ mode: 'record', upstreamUrl: everything.url, cacheDir: dir }));
    const c: ConnectedClient = keep(await connectClient(rec.url));
    await c.client.ping();
    await c.client.listTools();
    await c.client.callTool({ name: 'echo', arguments: { message: 'schema' } });
    await c.client.callTool({ name: 'get-sum', arguments: { a: 1, b: 2 } });
    await c.client.callTool({ name: 'get-structured-content', arguments: { location: 'Chicago' } });
    await c.client.callTool({ name: 'get-tiny-image', arguments: {} });
    await c.client.callTool(
      { name: 'trigger-long-running-operation', arguments: { duration: 0.2, steps: 2 } },
      undefined,
      { onprogress: () => {} },
    );
    await c.client.callTool({ name: 'trigger-sampling-request', arguments: { prompt: 'hi' } });
    const templates = await c.client.listResourceTemplates();
    await c.client.listResources();
    await c.client.readResource({
      uri: String(templates.resourceTemplates[0]?.uriTemplate).replace('{resourceId}', '1'),
    });
    await c.client.listPrompts();
    await c.client.getPrompt({ name: 'args-prompt', arguments: { city: 'Paris' } });
    await c.client.complete({
      ref: { type: 'ref/prompt', name: 'completable-prompt' },
      argument: { name: 'department', value: 'E' },
    });
    await c.client.setLoggingLevel('warning');
    const rec2 = keep(await startProxy({ mode: 'record', upstreamUrl: sdk.url, cacheDir: dir2 }));
    const c2 = keep(await connectClient(rec2.url));
    await c2.client.callTool({ name: 'progress', arguments: { steps: 2 } }, undefined, { onprogress: () => {} });
    await c2.client.callTool({ name: 'sample', arguments: { prompt: 'p' } });
    await c2.client.callTool({ name: 'elicit', arguments: {} });
    await c2.client.callTool({ name: 'add', arguments: { a: 2, b: 3 } });
    await rec.close();
    await rec2.close();

    const written = [...(await entries(dir)), ...(await entries(dir2))];
    expect(written.length).toBeGreaterThanOrEqual(20);
    for (const { file, data } of written) {
      expect(entrySchema.problem(data), file).toBeUndefined();
      // a list keeps the capabilities its client declared in the wrapped form (list-capabilities.ts)
      const bare =
        /^\d+ (initialize|tools_list|resources_list|resources_templates_list)\.json$/.test(file) &&
        !('$rewind' in data);
      // mcp-rewind's bare results are sent to the client as they are: no $schema there; every other entry has one
      expect(data.$schema, file).toBe(bare ? undefined : CASSETTE_ENTRY_SCHEMA_URL);
    }
    const kinds = new Set(
      written.map(({ data }) => ('$rewind' in data ? 'wrapped' : 'resultHash' in data ? 'tools/call' : 'bare')),
    );
    expect([...kinds].sort()).toEqual(['bare', 'tools/call', 'wrapped']);
    expect(written.some(({ data }) => Array.isArray(data.stream))).toBe(true);
  });

  it("accepts mcp-rewind's own cache (bare results, pre-hashing tools/call results)", async () => {
    for (const { file, data } of await entries(MCP_REWIND_CACHE))
      expect(entrySchema.problem(data), file).toBeUndefined();
  });

  it('rejects malformed entries', () => {
    const malformed: unknown[] = [
      [],
      'text',
      { $rewind: 1, method: 'resources/read' }, // no result
      { $rewind: 2, result: {} },
      { $rewind: 1, result: [] },
      { $rewind: 1, method: 5, result: {} },
      { $rewind: 1, result: {}, stream: [{ method: 'notifications/progress' }] }, // a streamed message without jsonrpc
      { name: 'echo', arguments: {}, resultHash: 'abc' }, // a tools/call entry without its result
      { name: 'echo', result: 'not an object', resultHash: 'abc' },
      { name: 7, result: {} },
      { result: {}, resultHash: 42 },
      { $schema: 3, protocolVersion: '2025-06-18' },
    ];
    for (const data of malformed) expect(entrySchema.problem(data), JSON.stringify(data)).toBeDefined();
  });

  it('is ignored by readers: a $schema added by hand to a bare result is not replayed', async () => {
    const entry = parseDistilled(1, 'initialize', '1 initialize.json', {
      $schema: CASSETTE_ENTRY_SCHEMA_URL,
      protocolVersion: '2025-06-18',
      capabilities: {},
      serverInfo: { name: 's', version: '1' },
    });
    expect(entry.result).toEqual({
      protocolVersion: '2025-06-18',
      capabilities: {},
      serverInfo: { name: 's', version: '1' },
    });

    const dir = await copyOf(MCP_REWIND_CACHE);
    for (const file of ['1 initialize.json', '3 tools_list.json', '5 tools_call_echo_cbbbdcd27692344d.json']) {
      const data = JSON.parse(await readFile(join(dir, file), 'utf8')) as Record<string, unknown>;
      await writeFile(join(dir, file), JSON.stringify({ $schema: CASSETTE_ENTRY_SCHEMA_URL, ...data }, null, 2));
    }
    const proxy = keep(await startProxy({ mode: 'replay', cacheDir: dir }));
    const res = await fetch(proxy.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      }),
    });
    const body = await res.text();
    const json = JSON.parse(body.startsWith('{') ? body : (/^data: (.*)$/m.exec(body)?.[1] ?? '')) as {
      result: Record<string, unknown>;
    };
    expect(json.result).not.toHaveProperty('$schema');
    expect(json.result.serverInfo).toEqual({ name: 'recorded-by-mcp-rewind', version: '3.1.4' });
    const c = keep(await connectClient(proxy.url));
    expect((await c.client.listTools()).tools.map((t) => t.name)).toEqual(['echo', 'add']);
    expect(await c.client.callTool({ name: 'echo', arguments: { text: 'hello' } })).toEqual({
      content: [{ type: 'text', text: 'hello from mcp-rewind' }],
    });
  });
});

describe('rules file schema', () => {
  const readmeRules = async (): Promise<unknown> => {
    const page = await readFile(join(REPO, 'docs/rules.md'), 'utf8');
    const block = /```json\n([\s\S]*?)```/.exec(page)?.[1];
    return JSON.parse(block ?? 'null');
  };

  it('accepts the rules example of docs/rules.md, with or without $schema, as the engine does', async () => {
    const rules = (await readmeRules()) as Record<string, unknown>;
    expect(rules).toMatchObject({ tools: expect.any(Array) });
    for (const file of [rules, { $schema: RULES_SCHEMA_URL, ...rules }]) {
      expect(rulesSchema.problem(file)).toBeUndefined();
      expect(RulesFileSchema.safeParse(file).success).toBe(true);
    }
  });

  it('a rules file with $schema loads in the CLI', async () => {
    const file = join(await tempDir(), 'rules.json');
    await writeFile(
      file,
      JSON.stringify({
        $schema: RULES_SCHEMA_URL,
        tools: [{ name: 'echo', behavior: { type: 'inject', template: '{original_text}!' } }],
      }),
    );
    const argv = ['node', 'mcp-rewind', '--replay', '--rules', file];
    const options = toProxyOptions(
      buildProgram('0.0.0-test').exitOverride().parse(argv).opts() as unknown as RawOptions,
    );
    expect(options.rules?.overlay.tools.map((t) => t.name)).toEqual(['echo']);
  });

  it('rejects what the engine rejects', () => {
    const malformed: unknown[] = [
      { tools: [{ name: 'x', behavior: { type: 'override', response: { text: 'a', content: [] } } }] }, // text and content
      { tools: [{ name: 'x', behavior: { type: 'teleport' } }] },
      { tools: [{ name: '' }] },
      { tools: [{ name: 'x', input_schema: { type: 'array' } }] },
      { tools: [{ name: 'x', behavior: { type: 'override', response: { delay_s: -1 } } }] },
      { tools: [], passthrough: 'yes' },
      { tool: [] }, // a typo: unknown field
    ];
    for (const data of malformed) {
      expect(rulesSchema.problem(data), JSON.stringify(data)).toBeDefined();
      expect(RulesFileSchema.safeParse(data).success, JSON.stringify(data)).toBe(false);
    }
  });
});

it('every schema file is listed in the package', async () => {
  expect((await readdir(join(REPO, 'schemas'))).sort()).toEqual(Object.keys(jsonSchemas()).sort());
});
