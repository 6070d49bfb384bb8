import { describe, expect, it } from 'vitest';
import {
  flattenTree,
  initialExpansion,
  pathId,
  pathText,
  preview,
  RANGE_SIZE,
  revealPath,
  searchTree,
  STRING_EXPANDED,
  STRING_PREVIEW,
} from '../../src/renderer/src/models/json-tree.js';
import { toolInputSchema } from '../../src/renderer/src/models/input-schema.js';
import { entryProblem } from '../../src/renderer/src/models/entry-check.js';
import { checkEdit } from '../../src/renderer/src/views/breakpoints/validate.js';
import {
  heldRows,
  indexOfRow,
  isChanged,
  rowId,
  rowKey,
  sourceKind,
  statusLabel,
} from '../../src/renderer/src/views/timeline/model.js';
import { groupBySession } from '../../src/renderer/src/views/timeline/sessions.js';
import { proxyConfigIssues, describeProxyIssues } from '../../src/shared/proxy-config.js';
import type { TrafficEvent } from '../../src/shared/api.js';

// The pure models behind the workspace's views: the JSON tree, the breakpoint editor's schema check, the cassette
// editor's entry check, held rows and row lookup, and the New proxy form's field problems.

describe('JSON tree model', () => {
  const doc = {
    result: { content: [{ type: 'text', text: 'hi' }], items: Array.from({ length: 250 }, (_, i) => ({ id: i })) },
    long: 'x'.repeat(STRING_PREVIEW + 50),
  };

  it('shows the expanded containers only, big arrays as ranges of RANGE_SIZE, long strings cut', () => {
    const open = new Set([pathId([]), pathId(['result'])]);
    const rows = flattenTree(doc, open);
    expect(rows.map((r) => r.label ?? '(root)')).toEqual(['(root)', 'result', 'content', 'items', 'long']);
    const items = rows.find((r) => r.label === 'items')!;
    expect(items).toMatchObject({ kind: 'array', size: 250, expandable: true, expanded: false });
    open.add(items.id);
    const ranges = flattenTree(doc, open).filter((r) => r.kind === 'range');
    expect(ranges.map((r) => r.label)).toEqual(['[0 … 99]', '[100 … 199]', '[200 … 249]']);
    expect((ranges[2].value as unknown[]).length).toBe(250 - 2 * RANGE_SIZE);
    open.add(ranges[1].id);
    const inside = flattenTree(doc, open).filter((r) => r.depth === 4);
    expect(inside).toHaveLength(RANGE_SIZE);
    expect(inside[0].path).toEqual(['result', 'items', 100]);
    const long = rows.find((r) => r.label === 'long')!;
    expect(long.expandable).toBe(true);
    expect(preview(long)).toMatch(new RegExp(`… \\(${STRING_PREVIEW + 50} characters\\)$`));
    expect(preview({ ...long, expanded: true })).toBe(JSON.stringify(doc.long));
    expect(preview({ ...long, value: 'y'.repeat(STRING_EXPANDED + 1), expanded: true })).toContain('characters)');
  });

  it('opens small documents a few levels deep, big ones at the root only', () => {
    expect([...initialExpansion(doc)].sort()).toEqual(
      [pathId([]), pathId(['result']), pathId(['result', 'content'])].sort(),
    ); // 3 levels; items (250) stays shut
    expect([...initialExpansion(Array.from({ length: 5000 }, (_, i) => i))]).toEqual([pathId([])]);
  });

  it('searches keys and values, reveals a match inside a range, names paths as code does', () => {
    const hits = searchTree(doc, 'ID');
    expect(hits.length).toBe(250);
    expect(hits.every((h) => h.inKey)).toBe(true);
    expect(searchTree(doc, 'hi')).toEqual([{ path: ['result', 'content', 0, 'text'], inKey: false }]);
    expect(searchTree(doc, '   ')).toEqual([]);
    expect(searchTree(doc, 'id', 10)).toHaveLength(10);
    const reveal = revealPath(doc, ['result', 'items', 217, 'id']);
    expect(reveal).toEqual([
      pathId([]),
      pathId(['result']),
      pathId(['result', 'items']),
      `${pathId(['result', 'items'])}#200`,
      pathId(['result', 'items', 217]),
    ]);
    const rows = flattenTree(doc, new Set(reveal));
    expect(rows.some((r) => pathId(r.path) === pathId(['result', 'items', 217, 'id']))).toBe(true);
    expect(pathText(['result', 'content', 0, 'text'])).toBe('result.content[0].text');
    expect(pathText(['headers', 'content-type'])).toBe('headers["content-type"]');
  });

  it('opens a 5 MB document by its first rows only', () => {
    const big = { items: Array.from({ length: 25_000 }, (_, i) => ({ id: i, payload: 'x'.repeat(200) })) };
    expect(JSON.stringify(big).length).toBeGreaterThan(5_000_000);
    const rows = flattenTree(big, initialExpansion(big));
    expect(rows.length).toBeLessThan(300); // the root, then 250 ranges: never 25,000 rows
  });
});

describe('breakpoint and resend editors: the tool schema', () => {
  it('takes the schema from the newest tools/list of the proxy', () => {
    const list = (proxyId: string, type: string) =>
      ({
        proxyId,
        method: 'tools/list',
        response: {
          jsonrpc: '2.0',
          id: 1,
          result: { tools: [{ name: 'echo', inputSchema: { type: 'object', properties: { text: { type } } } }] },
        },
      }) as unknown as TrafficEvent;
    const schemaOf = toolInputSchema([list('p1', 'string'), list('p2', 'number'), list('p1', 'boolean')], 'p1', 'echo');
    expect(schemaOf).toMatchObject({ properties: { text: { type: 'boolean' } } });
    expect(toolInputSchema([list('p1', 'string')], 'p1', 'other')).toBeUndefined();
  });
});

describe('cassette editor: the entry as you type', () => {
  const file = '5 tools_call_echo_cbbbdcd27692344d.json';
  const key = 'tools_call_echo_cbbbdcd27692344d';
  it('says where the JSON breaks, when it is no entry, and when a tools/call result is not MCP', () => {
    expect(entryProblem(file, key, '{\n  "result": {}\n} x')).toMatch(/^Invalid JSON — line 3, column 3: /); // where V8 names a position
    expect(entryProblem(file, key, '{ "result": ')).toMatch(/^Invalid JSON — /);
    expect(entryProblem(file, key, JSON.stringify({ result: { content: 'no' } }))).toMatch(
      /^Not an MCP tool result — result\.content: /,
    );
    // a text block without its text: the protocol's own schema (the SDK's) says what is missing, as you type
    expect(
      entryProblem(file, key, JSON.stringify({ name: 'echo', arguments: {}, result: { content: [{ type: 'text' }] } })),
    ).toBe('Not an MCP tool result — result.content[0].text: Invalid input: expected string, received undefined');
    expect(checkEdit('{ "content": [{ "type": "text" }] }', 'response', '2025-11-25')).toEqual({
      ok: false,
      message: 'not a CallToolResult: result.content[0].text: Invalid input: expected string, received undefined',
    });
    expect(checkEdit('{ "content": [{ "type": "text", "text": "ok" }] }', 'response', '2026-07-28')).toMatchObject({
      ok: true,
    });
    expect(entryProblem('1 initialize.json', 'initialize', '[1, 2]')).toMatch(/^Not a cassette entry — /);
    expect(
      entryProblem(
        file,
        key,
        JSON.stringify({ name: 'echo', arguments: {}, result: { content: [{ type: 'text', text: 'ok' }] } }),
      ),
    ).toBeUndefined();
  });
});

describe('timeline rows', () => {
  const event = (proxyId: string, seq: number, extra: Partial<TrafficEvent> = {}): TrafficEvent => ({
    proxyId,
    seq,
    method: 'tools/call',
    key: 'k',
    source: 'upstream',
    cassette: 'none',
    request: { jsonrpc: '2.0', id: seq, method: 'tools/call' },
    stream: [],
    startedAt: 0,
    durationMs: 1,
    ...extra,
  });
  it('held calls become pending rows with their own ids; an id finds its row', () => {
    const held = heldRows([
      { id: 'b1', proxyId: 'p1', tool: 'echo', stage: 'request', arguments: { text: 'x' }, since: 5, timeoutAt: 10 },
    ]);
    expect(held[0]).toMatchObject({
      pausedId: 'b1',
      tool: 'echo',
      request: { params: { name: 'echo', arguments: { text: 'x' } } },
    });
    expect(statusLabel(held[0])).toBe('‖ held');
    const rows = [event('p1', 1), event('p:2', 7), ...held];
    expect(indexOfRow(rows, rowId(rows[1]))).toBe(1);
    expect(indexOfRow(rows, rowId(held[0]))).toBe(2);
    expect(indexOfRow(rows, 99)).toBe(-1);
    expect(indexOfRow(rows, undefined)).toBe(-1);
  });
  it('an exchange is named by its seq alone, whatever its proxy; a group head is never the row found', () => {
    const rows = groupBySession(
      [event('p:1', 3, { sessionId: 's' }), event('p:2', 4, { sessionId: 's' }), event('p:1', 5)],
      new Map(),
    );
    expect(rows.map((r) => (r.group ? 'head' : r.seq))).toEqual(['head', 3, 4, 'head', 5]);
    expect(rows[0].seq).toBe(3); // a head carries its first exchange's fields
    expect(indexOfRow(rows, 3)).toBe(1);
    expect(indexOfRow(rows, rowId(rows[2]))).toBe(2);
    expect(new Set(rows.map(rowKey)).size).toBe(rows.length); // React keys: one per row
  });
  it('says what changed an answer and who answered', () => {
    expect(isChanged(event('p', 1))).toBe(false);
    expect(isChanged(event('p', 1, { behavior: 'inject' }))).toBe(true);
    expect(isChanged(event('p', 1, { original: { response: { jsonrpc: '2.0', id: 1, result: {} } } }))).toBe(true);
    expect(sourceKind(event('p', 1, { source: 'cache', behavior: 'inject' }))).toBe('cassette · rule (inject)');
    expect(sourceKind(event('p', 1, { source: 'proxy', behavior: 'override' }))).toBe('rule (override)');
    expect(sourceKind(event('p', 1, { flags: ['result edited at a breakpoint'] }))).toBe(
      'upstream · edited at a breakpoint',
    );
  });
});

describe('New proxy form: problems in the words of its fields', () => {
  it('names the form labels, never the API fields', () => {
    expect(proxyConfigIssues({ mode: 'record', upstreamUrl: 'nope' })).toEqual({
      upstreamUrl: 'not a URL (e.g. http://127.0.0.1:3000/mcp)',
    });
    expect(proxyConfigIssues({ mode: 'replay', port: -1, name: 'x'.repeat(101) })).toEqual({
      port: expect.any(String),
      name: 'at most 100 characters',
    });
    expect(proxyConfigIssues({ mode: 'replay' })).toEqual({}); // an empty cassette folder means the default one
    expect(
      describeProxyIssues(proxyConfigIssues({ mode: 'hybrid', upstreamUrl: 'http://a/mcp', upstreamCommand: 'x' })),
    ).toBe('stdio command: give either an Upstream URL or a stdio command, not both');
    expect(describeProxyIssues(proxyConfigIssues({ mode: 'proxy-only', shiny: true }))).toBe('unknown setting: shiny');
  });
});

describe('the final state on the row (issue 25)', () => {
  const base = {
    seq: 1,
    proxyId: 'p',
    method: 'tools/call',
    tool: 'echo',
    key: 'k',
    source: 'upstream',
    cassette: 'none',
    stream: [],
    startedAt: 0,
    durationMs: 1,
  } as const;
  const request = { jsonrpc: '2.0', id: 1, method: 'tools/call' } as const;
  it('an exchange that ended without an answer says how, never "pending"', () => {
    const row = (extra: Partial<TrafficEvent>): string => statusLabel({ ...base, request, ...extra } as TrafficEvent);
    expect(row({ final: 'http-error', http: { status: 400, headers: {} } })).toBe('HTTP 400');
    expect(row({ final: 'cancelled' })).toBe('cancelled');
    expect(row({ final: 'client-gone' })).toBe('client gone');
    expect(
      row({ final: 'timeout', response: { jsonrpc: '2.0', id: 1, error: { code: -32005, message: 'cut' } } }),
    ).toBe('timed out');
    // a held answer released because its client cancelled: the row says cancelled, not ok
    expect(row({ final: 'cancelled', response: { jsonrpc: '2.0', id: 1, result: { content: [] } } })).toBe('cancelled');
    expect(row({ final: 'answered', response: { jsonrpc: '2.0', id: 1, result: { content: [] } } })).toBe('ok');
    expect(row({})).toBe('pending'); // still in flight
  });
});
