/**
 * `mcp-rewind diff <A> <B>` (issue 21, item 20): two real recordings of releases of the same server (the SDK v2
 * fixture, its `release` option) compared without a live server — keys and tools added, removed and changed, a
 * removed tool or a narrowed schema rated breaking (exit 1), a new optional field compatible (exit 0), text and
 * --json output; and the schema rating itself on the JSON Schema keywords it knows.
 *
 * The CLI cases spawn the built command: run `npm run build:cli` first (`npm test` does).
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { keyFor } from '../src/main/engine/cassette/keys.js';
import { diffSchema, diffToolLists } from '../src/main/engine/cassette/schema-diff.js';
import { connectV2Client } from './fixtures/v2-client.js';
import { startV2Server, type V2Release } from './fixtures/v2-server.js';
import { runCli } from './helpers/hostile.js';
import { recordThrough } from './helpers/recording.js';
import { recordRelease } from './helpers/release-cassettes.js';
import { removeTempDirs, tempDir } from './helpers/temp.js';

afterEach(removeTempDirs);

/** A recording of one release: its tools listed, echo and (where the release has it) fail called, in 2026-07-28. */
async function recording(release?: V2Release): Promise<string> {
  const server = await startV2Server({ release });
  try {
    const { cacheDir } = await recordThrough(server.url, async (url) => {
      const c = await connectV2Client(url, { negotiation: 'auto' });
      const { tools } = await c.client.listTools();
      await c.client.callTool({ name: 'echo', arguments: { text: 'hi' } });
      if (tools.some((t) => t.name === 'fail')) await c.client.callTool({ name: 'fail', arguments: {} });
      await c.close();
    });
    return cacheDir;
  } finally {
    await server.close();
  }
}

const failKey = keyFor({ method: 'tools/call', params: { name: 'fail', arguments: {} } });
const echoKey = keyFor({ method: 'tools/call', params: { name: 'echo', arguments: { text: 'hi' } } });

describe('mcp-rewind diff', () => {
  it('rates a removed tool breaking (exit 1), in text and in JSON', async () => {
    const [a, b] = [await recording(), await recording({ without: ['fail'] })];
    const text = await runCli(['diff', a, b]);
    expect(text.stderr).toBe('');
    expect(text.code).toBe(1);
    expect(text.stdout).toContain('tools: 1 removed, 0 added, 0 changed');
    expect(text.stdout).toMatch(/^ {2}BREAKING {4}fail: removed$/m);
    expect(text.stdout).toMatch(new RegExp(`^ {2}removed {2}${failKey}$`, 'm'));
    expect(text.stdout.trim().split('\n').at(-1)).toBe('1 breaking, 0 compatible tool changes — BREAKING');

    const json = await runCli(['diff', a, b, '--json']);
    expect(json.code).toBe(1);
    const parsed = JSON.parse(json.stdout);
    expect(parsed.tools).toEqual([
      { tool: 'fail', change: 'removed', rating: 'breaking', rule: 'diff.tool-removed', details: [] },
    ]);
    expect(parsed.keys.removed).toEqual([failKey]);
    expect(parsed.keys.added).toEqual([]);
    expect(parsed.breaking).toBe(true);
  });

  it('rates a new optional property compatible (exit 0) and shows the changed keys with their paths', async () => {
    const [a, b] = [await recording(), await recording({ echoLang: 'optional', resultPrefix: 'v2:' })];
    const run = await runCli(['diff', a, b]);
    expect(run.code, run.stdout).toBe(0);
    expect(run.stdout).toMatch(/^ {2}compatible {2}echo: inputSchema\.properties\.lang: new optional field$/m);
    expect(run.stdout).toMatch(
      new RegExp(
        `^ {2}changed {2}${echoKey}\\n {13}\\$\\.result\\.content\\[0\\]\\.text: "echo: hi" → "v2:echo: hi"$`,
        'm',
      ),
    );
    expect(run.stdout).toMatch(
      /^ {2}changed {2}tools_list\n {13}\$\.result\.tools\[0\]\.inputSchema\.properties\.lang: added \{"type":"string"\}$/m,
    );
    expect(run.stdout.trim().split('\n').at(-1)).toBe('0 breaking, 1 compatible tool change — no breaking change');
    // what the keys' comparison leaves out
    const ignoring = JSON.parse((await runCli(['diff', a, b, '--json', '--ignore-fields', '**.text'])).stdout);
    expect(ignoring.keys.changed.map((c: { key: string }) => c.key)).toEqual(['tools_list']);
  });

  it('rates a new required field breaking; compares a single-file export with a folder', async () => {
    const a = await recording();
    const b = await recording({ echoLang: 'required' });
    const file = path.join(await tempDir(), 'a.json');
    expect((await runCli(['export', '--cache', a, '--out', file])).code).toBe(0);
    const run = await runCli(['diff', file, b, '--json']);
    expect(run.code).toBe(1);
    const echo = JSON.parse(run.stdout).tools.find((t: { tool: string }) => t.tool === 'echo');
    expect(echo).toMatchObject({ change: 'changed', rating: 'breaking' });
    expect(echo.details).toContainEqual({
      at: 'inputSchema.properties.lang',
      what: 'new required field',
      rating: 'breaking',
      rule: 'diff.input-narrowed',
    });
  });

  it('one classification (issue 33): a removed tool, a narrowed number → integer and a changed result — no "widened" line for the narrowing, and the footer counts the lines above it', async () => {
    const [a, b] = [await recordRelease(1), await recordRelease(2)];
    const run = await runCli(['diff', a, b]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(1);
    const lines = run.stdout.trim().split('\n');
    const tools = lines.slice(
      1,
      lines.findIndex((l) => l.startsWith('keys:')),
    );
    expect(tools.filter((l) => l.includes('add:'))).not.toContainEqual(expect.stringMatching(/widened|compatible/));
    expect(tools).toContain('  BREAKING    add: inputSchema.properties.a.type: type narrowed: "number" → "integer"');
    expect(tools).toContain('  BREAKING    fail: removed');
    const rated = (label: string): number => tools.filter((l) => l.startsWith(`  ${label} `)).length;
    expect(rated('BREAKING')).toBeGreaterThanOrEqual(2);
    expect(lines.at(-1)).toBe(
      `${rated('BREAKING')} breaking, ${rated('compatible')} compatible tool changes — BREAKING`,
    );
    expect(run.stdout).toMatch(
      /^ {2}changed {2}tools_call_echo_\w+\n {13}\$\.result\.content\[0\]\.text: "echo: hi" → "v2:echo: hi"$/m,
    );
    // the JSON says the same: each printed change once, and the counts are those of the changes
    const json = JSON.parse((await runCli(['diff', a, b, '--json'])).stdout);
    const details = json.tools.flatMap((t: { change: string; rating: string; details: { rating: string }[] }) =>
      t.change === 'changed' ? t.details : [t],
    );
    expect(json.counts.breaking).toBe(details.filter((d: { rating: string }) => d.rating === 'breaking').length);
    expect(json.counts.compatible).toBe(details.filter((d: { rating: string }) => d.rating === 'compatible').length);
    expect(json.counts.breaking).toBe(rated('BREAKING'));
  });

  it('does not call every tool removed when one recording never listed the tools', async () => {
    const server = await startV2Server();
    const { cacheDir: calls } = await recordThrough(server.url, async (url) => {
      const c = await connectV2Client(url, { negotiation: 'auto' });
      await c.client.callTool({ name: 'echo', arguments: { text: 'hi' } });
      await c.close();
    });
    await server.close();
    const run = await runCli(['diff', await recording(), calls]);
    expect(run.code, run.stdout).toBe(0);
    expect(run.stdout).toContain('tools: not compared (B recorded no tools/list answer)');
    expect(run.stdout).toMatch(/^ {2}removed {2}tools_list$/m);
  });

  it('exits 2 with one line for a cassette that does not exist, and creates nothing', async () => {
    const a = await recording();
    const missing = path.join(await tempDir(), 'nope');
    const run = await runCli(['diff', a, missing]);
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toContain(`cassette ${missing} does not exist`);
    expect(existsSync(missing)).toBe(false);
    expect((await runCli(['diff', a])).code).toBe(2);
  });
});

describe('schema rating', () => {
  const object = (properties: Record<string, unknown>, required: string[] = []) => ({
    type: 'object',
    properties,
    required,
  });

  it('input: narrowing breaks (removed property, newly required, fewer types or enum values, tighter bounds), widening does not', () => {
    const before = object(
      { a: { type: ['string', 'number'] }, b: { enum: ['x', 'y'] }, c: { type: 'string', maxLength: 10 }, d: {} },
      ['a'],
    );
    const after = object(
      {
        a: { type: 'string' },
        b: { enum: ['x', 'y', 'z'] },
        c: { type: 'string', maxLength: 5, description: 'now documented' },
      },
      ['a', 'b'],
    );
    expect(diffSchema(before, after, 'input', 'inputSchema')).toEqual([
      {
        at: 'inputSchema.properties.a.type',
        what: 'type narrowed: "string", "number" → "string"',
        rating: 'breaking',
        rule: 'diff.input-narrowed',
      },
      {
        at: 'inputSchema.properties.b.enum',
        what: 'enum widened: "z" added',
        rating: 'compatible',
        rule: 'diff.input-widened',
      },
      {
        at: 'inputSchema.properties.c.maxLength',
        what: 'maxLength 10 → 5',
        rating: 'breaking',
        rule: 'diff.input-narrowed',
      },
      {
        at: 'inputSchema.properties.c.description',
        what: 'description changed',
        rating: 'compatible',
        rule: 'diff.tool-annotation',
      },
      { at: 'inputSchema.properties.d', what: 'property removed', rating: 'breaking', rule: 'diff.input-narrowed' },
      { at: 'inputSchema.required', what: 'now required: "b"', rating: 'breaking', rule: 'diff.input-narrowed' },
    ]);
  });

  it('type: integer is a kind of number — number → integer one narrowing, integer → number one widening, string → number one breaking change', () => {
    const at = 'inputSchema.properties.a';
    expect(diffSchema({ type: 'number' }, { type: 'integer' }, 'input', at)).toEqual([
      {
        at: `${at}.type`,
        what: 'type narrowed: "number" → "integer"',
        rating: 'breaking',
        rule: 'diff.input-narrowed',
      },
    ]);
    expect(diffSchema({ type: 'integer' }, { type: 'number' }, 'input', at)).toEqual([
      {
        at: `${at}.type`,
        what: 'type widened: "integer" → "number"',
        rating: 'compatible',
        rule: 'diff.input-widened',
      },
    ]);
    expect(diffSchema({ type: 'integer' }, { type: 'number' }, 'output', at)).toEqual([
      { at: `${at}.type`, what: 'type widened: "integer" → "number"', rating: 'breaking', rule: 'diff.output-widened' },
    ]);
    for (const direction of ['input', 'output'] as const)
      expect(diffSchema({ type: 'string' }, { type: 'number' }, direction, at)).toMatchObject([
        { what: 'type changed: "string" → "number"', rating: 'breaking' },
      ]);
    expect(diffSchema({ type: ['integer', 'string'] }, { type: ['number', 'string'] }, 'input', at)).toMatchObject([
      { what: 'type widened: "integer", "string" → "number", "string"', rating: 'compatible' },
    ]);
  });

  it('output: widening breaks a reader (a field no longer required, more enum values), a new field does not', () => {
    const before = object({ status: { enum: ['ok'] } }, ['status']);
    const after = object({ status: { enum: ['ok', 'partial'] }, extra: { type: 'string' } });
    expect(diffSchema(before, after, 'output', 'outputSchema')).toEqual([
      {
        at: 'outputSchema.properties.status.enum',
        what: 'enum widened: "partial" added',
        rating: 'breaking',
        rule: 'diff.output-widened',
      },
      {
        at: 'outputSchema.properties.extra',
        what: 'new optional field',
        rating: 'compatible',
        rule: 'diff.output-narrowed',
      },
      {
        at: 'outputSchema.required',
        what: 'no longer required: "status"',
        rating: 'breaking',
        rule: 'diff.output-widened',
      },
    ]);
  });

  it('rates a tool by its worst change; an added tool is compatible, a keyword it cannot judge is breaking', () => {
    const tool = (name: string, inputSchema: unknown) => ({ name, inputSchema });
    expect(
      diffToolLists(
        [tool('a', object({ s: { type: 'string', pattern: '^a' } }))],
        [tool('a', object({ s: { type: 'string', pattern: '^b' } })), tool('b', {})],
      ),
    ).toEqual([
      {
        tool: 'a',
        change: 'changed',
        rating: 'breaking',
        details: [
          {
            at: 'inputSchema.properties.s.pattern',
            what: 'changed; cannot tell whether it narrows',
            rating: 'breaking',
            rule: 'diff.schema-unclear',
          },
        ],
      },
      { tool: 'b', change: 'added', rating: 'compatible', rule: 'diff.tool-added', details: [] },
    ]);
  });
});
