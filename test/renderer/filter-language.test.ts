import { describe, expect, it } from 'vitest';
import type { TrafficEvent } from '../../src/shared/api.js';
import { finding } from '../../src/shared/insight/findings.js';
import {
  applyCompletion,
  complete,
  quoteValue,
  type CompletionValues,
} from '../../src/renderer/src/models/filter-complete.js';
import {
  HAS,
  matchQuery,
  parseDuration,
  parseQuery,
  parseSize,
  parseTime,
  timeTerm,
  tokenize,
  withTerms,
  type QueryContext,
} from '../../src/renderer/src/models/filter-query.js';
import { filterFromHash, hashWithFilter } from '../../src/renderer/src/views/timeline/filter-url.js';
import { EMPTY_FILTER } from '../../src/renderer/src/views/timeline/model.js';

/**
 * The timeline's filter language as pure functions: the tokenizer, each key's values, the matcher, the completion
 * at the cursor, the terms a chart click writes, and the filter in the URL. The language over real exchanges from
 * the engine is in timeline-model.test.ts; in Chromium, in e2e/inspector-filter.spec.ts.
 */

let seq = 0;
function exchange(patch: Partial<TrafficEvent> = {}): TrafficEvent {
  seq++;
  return {
    proxyId: 'p1',
    seq,
    method: 'tools/call',
    tool: 'echo',
    key: `tools_call_echo_${seq}`,
    source: 'upstream',
    cassette: 'none',
    request: {
      jsonrpc: '2.0',
      id: seq,
      method: 'tools/call',
      params: { name: 'echo', arguments: { text: `hello ${seq}` } },
    },
    stream: [],
    response: { jsonrpc: '2.0', id: seq, result: { content: [{ type: 'text', text: 'Echo' }] } },
    startedAt: new Date(2026, 4, 1, 12, 0, 0).getTime(),
    durationMs: 10,
    ...patch,
  } as TrafficEvent;
}

const ctx: QueryContext = {
  mark: (s) => (s === 2 ? { pinned: true } : s === 3 ? { pinned: false, note: 'look' } : undefined),
  proxyName: (id) => ({ p1: 'demo', p2: 'other proxy' })[id] ?? id,
  session: (id) => (id === 'abcd1234-0000' ? { client: 'Claude Desktop', app: false } : undefined),
};
const matches = (text: string, e: TrafficEvent): boolean => matchQuery(parseQuery(text), e, ctx);

describe('filter language: tokens', () => {
  it('splits on spaces, except inside quotes and /regexes/; keys and operators; - negates', () => {
    expect(
      tokenize('tool:echo -status:ok "two words" /a b/i duration>=5 http://x').map((t) => [
        t.negate,
        t.key,
        t.op,
        t.value,
        t.text,
      ]),
    ).toEqual([
      [false, 'tool', ':', 'echo', 'tool:echo'],
      [true, 'status', ':', 'ok', 'status:ok'],
      [false, undefined, undefined, 'two words', 'two words'],
      [false, undefined, undefined, '', '/a b/i'],
      [false, 'duration', '>=', '5', 'duration>=5'],
      [false, 'http', ':', '//x', 'http://x'],
    ]);
    expect(tokenize('tool:"my tool" "a \\" quote"').map((t) => t.value)).toEqual(['my tool', 'a " quote']);
    // an unterminated quote runs to the end (typing it never hangs)
    expect(tokenize('"beta').map((t) => t.value)).toEqual(['beta']);
    expect(tokenize('  ').length).toBe(0);
    expect(tokenize('- -x').map((t) => [t.negate, t.value])).toEqual([
      [false, '-'],
      [true, 'x'],
    ]);
  });

  it('reads sizes, durations and times', () => {
    expect([
      parseSize('500'),
      parseSize('10k'),
      parseSize('1.5M'),
      parseSize('2kb'),
      parseSize('1KiB'),
      parseSize('x'),
    ]).toEqual([500, 10_240, 1_572_864, 2_048, 1_024, undefined]);
    expect([parseDuration('500'), parseDuration('1.5s'), parseDuration('20ms'), parseDuration('soon')]).toEqual([
      500,
      1_500,
      20,
      undefined,
    ]);
    expect(parseTime('12:03')).toEqual({ ofDay: (12 * 60 + 3) * 60_000 });
    expect(parseTime('12:03:04.12')).toEqual({ ofDay: ((12 * 60 + 3) * 60 + 4) * 1000 + 120 });
    expect(parseTime('25:00')).toBeUndefined();
    expect(parseTime('2026-05-01T12:00:00')).toEqual({ at: new Date(2026, 4, 1, 12, 0, 0).getTime() });
  });
});

describe('filter language: each key', () => {
  it('method, tool and key: exact (any case) or * wildcards; a comma means any of', () => {
    const e = exchange();
    expect(
      [
        'method:tools/call',
        'method:TOOLS/CALL',
        'method:tools/*',
        'tool:echo',
        'tool:ec*',
        'tool:add,echo',
        'key:tools_call_echo_*',
      ].map((t) => matches(t, e)),
    ).toEqual([true, true, true, true, true, true, true]);
    expect(['method:tools', 'tool:ech', 'tool:add,sum', '-tool:echo'].map((t) => matches(t, e))).toEqual([
      false,
      false,
      false,
      false,
    ]);
  });

  it('status: words, a JSON-RPC code, an HTTP status or class', () => {
    const ok = exchange({ http: { status: 200, headers: {} } });
    const rpc = exchange({ response: { jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'bad' } } });
    const tool = exchange({ response: { jsonrpc: '2.0', id: 1, result: { isError: true, content: [] } } });
    const pending = exchange({ response: undefined });
    const http = exchange({
      response: { jsonrpc: '2.0', id: 1, error: { code: -32000, message: 'x' } },
      http: { status: 404, headers: {} },
    });
    const all = [ok, rpc, tool, pending, http];
    const which = (text: string): number[] => all.filter((e) => matches(text, e)).map((e) => all.indexOf(e));
    expect(which('status:ok')).toEqual([0]);
    expect(which('status:error')).toEqual([1, 4]);
    expect(which('status:tool-error')).toEqual([2]);
    expect(which('status:pending')).toEqual([3]);
    expect(which('status:-32602')).toEqual([1]);
    expect(which('status:404')).toEqual([4]);
    expect(which('status:4xx')).toEqual([4]);
    expect(which('has:error')).toEqual([1, 2, 4]);
    expect(parseQuery('status:maybe').problems).toEqual([
      { term: 'status:maybe', message: expect.stringContaining('status:maybe — expected ok, error') },
    ]);
  });

  it('`!` negates as `-` does (issue 35: `!tool:echo` kept nothing, silently)', () => {
    const echo = exchange({ method: 'tools/call', tool: 'echo' });
    const add = exchange({ method: 'tools/call', tool: 'add' });
    const which = (text: string): boolean[] => [matches(text, echo), matches(text, add)];
    expect(which('!tool:echo')).toEqual([false, true]);
    expect(which('!tool:echo')).toEqual(which('-tool:echo'));
    expect(which('!"add"')).toEqual([true, false]);
    expect(parseQuery('!tool:echo').problems).toEqual([]);
    // a lone `!` is a word, as a lone `-` is
    expect(tokenize('! !x').map((t) => [t.negate, t.value])).toEqual([
      [false, '!'],
      [true, 'x'],
    ]);
  });

  it('a term whose key is no filter is said (a typo names the key meant), and searched as text', () => {
    const echo = exchange({ method: 'tools/call', tool: 'echo' });
    const typo = parseQuery('tol:echo');
    expect(typo.problems).toEqual([
      { term: 'tol:echo', message: 'tol: is not a filter (did you mean tool:?) — searched as text' },
    ]);
    expect(typo.terms.map((t) => t.raw)).toEqual(['tol:echo']);
    expect(parseQuery('!colour:red').problems[0].message).toBe('colour: is not a filter — searched as text');
    // what is not said: a URL, a key still being typed, a known key
    expect(['http://x', 'tol:', 'tool:echo', '"tol:echo"'].map((t) => parseQuery(t).problems)).toEqual([
      [],
      [],
      [],
      [],
    ]);
    expect(matches('http://x', echo)).toBe(false);
  });

  it('source, proxy (by name), session (id start, client, app)', () => {
    const cached = exchange({ source: 'cache', proxyId: 'p2', sessionId: 'abcd1234-0000' });
    const injected = exchange({ behavior: 'inject', sentBy: { kind: 'resend' } });
    expect(
      [
        'source:cache',
        'source:cassette',
        'proxy:"other proxy"',
        'proxy:other*',
        'session:abcd',
        'session:claude*',
        'session:"Claude Desktop"',
      ].map((t) => matches(t, cached)),
    ).toEqual([true, true, true, true, true, true, true]);
    expect(['source:rule', 'session:app'].map((t) => [matches(t, cached), matches(t, injected)])).toEqual([
      [false, true],
      [false, true],
    ]);
    expect(parseQuery('source:elsewhere').problems).toHaveLength(1);
  });

  it('has: each value of the table; a value it does not know is said', () => {
    const streamed = exchange({
      stream: [{ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 1 } }],
    });
    const pinned = exchange(); // seq 2 is pinned in ctx… when it is the second made here
    const values = Object.keys(HAS);
    expect(values).toEqual(['error', 'stream', 'edit', 'note', 'pin', 'flag', 'truncated', 'problem']);
    expect(matches('has:stream', streamed)).toBe(true);
    expect(matches('has:stream', pinned)).toBe(false);
    expect(matches('has:pin', { ...pinned, seq: 2 })).toBe(true);
    expect(matches('has:note', { ...pinned, seq: 3 })).toBe(true);
    expect(matches('has:edit', exchange({ original: { response: { jsonrpc: '2.0', id: 1, result: {} } } }))).toBe(true);
    expect(matches('has:flag', exchange({ flags: ['client reply differed'] }))).toBe(true);
    expect(matches('has:truncated', exchange({ truncated: { response: 600_000 } }))).toBe(true);
    // the insight checks' findings (the ⚠ column); `has:problems` as the REST API and the agents say it
    const found = exchange({
      insight: { problems: [finding('tool.is-error-empty', 'response.result', 'isError without content')] },
    });
    expect(['has:problem', 'has:problems', '-has:problem'].map((t) => [matches(t, found), matches(t, pinned)])).toEqual(
      [
        [true, false],
        [true, false],
        [false, true],
      ],
    );
    expect(parseQuery('has:magic').problems[0].message).toContain('error, stream, edit, note, pin');
  });

  it('sizes and durations compared; larger-than as DevTools has it', () => {
    const big = exchange({ truncated: { response: 2 * 1024 * 1024 } });
    const small = exchange({ durationMs: 900 });
    expect(['larger-than:1M', 'size>1M', 'size<=1k'].map((t) => [matches(t, big), matches(t, small)])).toEqual([
      [true, false],
      [true, false],
      [false, true],
    ]);
    expect(
      ['duration>500', 'duration>=900', 'duration<1s', 'duration<=10'].map((t) => [matches(t, big), matches(t, small)]),
    ).toEqual([
      [false, true],
      [false, true],
      [true, true],
      [true, false],
    ]);
    expect(matches('duration<1000', exchange({ response: undefined }))).toBe(true); // pending: -1
    expect(matches('duration>=0', exchange({ response: undefined }))).toBe(false);
    expect(parseQuery('duration:500').problems[0].message).toContain('compare with >');
    expect(parseQuery('larger-than>5').problems[0].message).toContain('larger-than:value');
    expect(parseQuery('size>lots').problems[0].message).toContain('a number');
  });

  it('after / before: a time of day, or a date and time', () => {
    const noon = exchange();
    expect(
      ['after:11:59', 'before:12:00:00.001', 'after:2026-05-01T11:00', 'before:2026-05-02T00:00'].map((t) =>
        matches(t, noon),
      ),
    ).toEqual([true, true, true, true]);
    expect(['after:12:00:01', 'before:12:00', 'after:2026-05-02T00:00'].map((t) => matches(t, noon))).toEqual([
      false,
      false,
      false,
    ]);
    expect(parseQuery('after:noon').problems).toHaveLength(1);
  });

  it('free text and /regex/ search the JSON in any case; a bad regex is said; unknown keys are text', () => {
    const e = exchange({
      request: {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'echo', arguments: { url: 'http://Example.com/a' } },
      },
    });
    expect(
      ['example', 'EXAMPLE.com', 'http://example.com', '"com/a"', '/exam+ple\\.com/', '/EXAMPLE/', '-nothing'].map(
        (t) => matches(t, e),
      ),
    ).toEqual([true, true, true, true, true, true, true]);
    expect(['absent', '-example', '/^xyz/'].map((t) => matches(t, e))).toEqual([false, false, false]);
    expect(parseQuery('/(unclosed/').problems[0].message).toContain('not a regular expression');
    // an unknown key is searched as text, and said (issue 35)
    expect(parseQuery('foo:bar').problems.map((p) => p.message)).toEqual(['foo: is not a filter — searched as text']);
  });

  it('a key still being typed (status:, -has:) filters nothing and says nothing', () => {
    for (const text of ['status:', '-has:', 'duration>']) {
      expect(parseQuery(text)).toMatchObject({ terms: [], problems: [] });
      expect(matches(text, exchange())).toBe(true);
    }
  });
});

describe('filter language: completion at the cursor', () => {
  const values: CompletionValues = {
    tool: [
      ['echo', 'seen'],
      ['Echo Two', 'seen'],
      ['add', 'seen'],
    ],
    method: [['tools/call', 'seen']],
  };

  it('keys from their first letters; comparison keys with their operator', () => {
    expect(complete('st', 2, values)?.options.map((o) => o.insert)).toEqual(['status:']);
    expect(complete('-s', 2, values)).toMatchObject({ from: 1, to: 2 });
    expect(complete('du', 2, values)?.options.map((o) => o.insert)).toEqual(['duration>']);
    expect(complete('', 0, values)?.options.length).toBeGreaterThan(10);
    expect(complete('zzz', 3, values)).toBeUndefined();
    expect(complete('/re', 3, values)).toBeUndefined();
  });

  it('values of the key at the cursor: fixed ones and those seen, quoted when needed; after a comma, the next one', () => {
    expect(complete('status:', 7, values)?.options.map((o) => o.label)).toEqual([
      'ok',
      'error',
      'tool-error',
      'pending',
      'held',
      '4xx',
    ]);
    expect(complete('tool:ec', 7, values)?.options.map((o) => o.insert)).toEqual(['echo ', '"Echo Two" ']);
    const after = complete('tool:echo,a', 11, values);
    expect(after).toMatchObject({ from: 10, to: 11 });
    expect(after?.options.map((o) => o.label)).toEqual(['add']);
    expect(complete('has:st', 6, values)?.options.map((o) => o.label)).toEqual(['stream']);
    expect(complete('duration>5', 10, values)).toBeUndefined();
    expect(quoteValue('a b')).toBe('"a b"');
    expect(quoteValue('say "hi"')).toBe('"say \\"hi\\""');
  });

  it('taking a completion replaces the term at the cursor and puts the cursor after it', () => {
    const text = 'method:tools/call st -tool:add';
    const at = text.indexOf('st') + 2;
    const result = complete(text, at, values)!;
    expect(applyCompletion(text, result, result.options[0])).toEqual({
      text: 'method:tools/call status: -tool:add',
      cursor: 'method:tools/call status:'.length,
    });
    const value = complete('status:o', 8, values)!;
    expect(applyCompletion('status:o', value, value.options[0])).toEqual({ text: 'status:ok ', cursor: 10 });
  });
});

describe('filter language: what a chart click writes, and the URL', () => {
  it('withTerms replaces the terms of the keys given (negated ones stay), timeTerm writes a time the language reads', () => {
    expect(
      withTerms('tool:echo duration>5 duration<9 -duration>100', ['duration'], ['duration>=10', 'duration<20']),
    ).toBe('tool:echo -duration>100 duration>=10 duration<20');
    const at = new Date(2026, 4, 1, 9, 5, 7, 30).getTime();
    expect(timeTerm(at, false)).toBe('09:05:07.030');
    expect(timeTerm(at, true)).toBe('2026-05-01T09:05:07.030');
    expect(parseTime(timeTerm(at, true))).toEqual({ at });
  });

  it('the hash carries every field set; a hash without a query carries no filter; odd values are dropped', () => {
    const filter = { ...EMPTY_FILTER, text: 'tool:echo "a b"', status: 'error' as const, pinned: true };
    const hash = hashWithFilter('timeline', filter);
    expect(hash).toBe('#/timeline?q=tool%3Aecho+%22a+b%22&status=error&pinned=1');
    expect(filterFromHash(hash)).toEqual(filter);
    expect(hashWithFilter('timeline', EMPTY_FILTER)).toBe('#/timeline');
    expect(filterFromHash('#/timeline')).toBeUndefined();
    expect(filterFromHash('#/timeline?status=whatever&source=cache')).toEqual({ ...EMPTY_FILTER, source: 'cache' });
  });
});
