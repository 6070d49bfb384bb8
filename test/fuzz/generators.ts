/**
 * Seeded, reproducible generators of malformed or hostile inputs, one family per endpoint kind:
 *
 *   mcp        Streamable HTTP MCP endpoint (proxy in record / replay mode, serve's token-gated endpoint)
 *   legacy     legacy HTTP+SSE: GET …/sse and POST …/messages?sessionId=
 *   rest       serve's REST API (/api/*): bodies violating every schema field, auth and path abuse
 *   page       the browser shell's HTTP side (page, assets, token, WebSocket upgrade abuse)
 *   ws         frames on the browser shell's WebSocket bridge (/api)
 *
 * Every input is a pure function of (seed, target, index): `rngFor(seed, target, i)` seeds a mulberry32 for it, so one
 * failing input is reproduced from its three numbers alone. Inputs do not know the running instances: placeholders
 * (`{{SID}}`, `{{TOKEN}}`, …) in paths, headers and WebSocket frames are filled in by the runner (run-fuzz.ts).
 *
 * Safety: values that name files (cassette folders, export targets, settings folders) are always below `{{SANDBOX}}`
 * (a temp folder of the run), `..` never climbs out of it, and no generated command line can run anything.
 */

// ---------------------------------------------------------------------------------------------------------------
// PRNG

export interface Rng {
  /** [0, 1) */
  next(): number;
  /** integer in [0, n) */
  int(n: number): number;
  /** integer in [lo, hi] */
  range(lo: number, hi: number): number;
  chance(p: number): boolean;
  pick<T>(items: readonly T[]): T;
}

export function mulberry32(seed: number): Rng {
  let a = seed >>> 0;
  const next = (): number => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number): number => Math.floor(next() * n);
  return {
    next,
    int,
    range: (lo, hi) => lo + int(hi - lo + 1),
    chance: (p) => next() < p,
    pick: (items) => items[int(items.length)],
  };
}

/** FNV-1a of a string: stable per-target salt */
function fnv(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

/** The PRNG of input `index` of `target` under `seed`: inputs are independent of each other and of the count. */
export function rngFor(seed: number, target: string, index: number): Rng {
  const warm = mulberry32((seed ^ fnv(target)) + Math.imul(index + 1, 0x9e3779b1));
  return mulberry32(Math.floor(warm.next() * 4294967296));
}

// ---------------------------------------------------------------------------------------------------------------
// input shapes

export type EndpointKind = 'mcp' | 'legacy' | 'rest' | 'page' | 'ws';

export interface HttpInput {
  type: 'http';
  /** what the generator meant, for reports (e.g. "deep nesting 129 in params") */
  label: string;
  method: string;
  /** may contain placeholders */
  path: string;
  /** values may contain placeholders; an array sends the header several times */
  headers: Record<string, string | string[]>;
  body?: Buffer;
  /** Transfer-Encoding: chunked instead of Content-Length */
  chunked?: boolean;
  /** the runner adds the live MCP session's headers (Mcp-Session-Id, MCP-Protocol-Version) unless already set */
  session?: boolean;
}

/** Bytes written on a fresh TCP connection; the answer is the first status line (or a close). Must be complete. */
export interface RawInput {
  type: 'raw';
  label: string;
  /** latin1 text, may contain placeholders */
  bytes: string;
}

export interface WsInput {
  type: 'ws';
  label: string;
  /** text frames may contain placeholders */
  frame: string | Buffer;
  binary: boolean;
  /** what the bridge must do: answer with this id (-1 = unattributable), or close the connection with this code */
  expect: { id: number } | { close: number };
}

export type FuzzInput = HttpInput | RawInput | WsInput;

// ---------------------------------------------------------------------------------------------------------------
// values

/** JSON text inserted verbatim by `toJson` (numbers JSON.stringify cannot write: -0, 1e400, 30-digit integers …) */
export class RawJson {
  constructor(readonly text: string) {}
}

export function toJson(value: unknown): string {
  if (value instanceof RawJson) return value.text;
  if (Array.isArray(value)) return `[${value.map(toJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `${JSON.stringify(k)}:${toJson(v)}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

const ODD_NUMBERS = [
  '-0',
  '0.0',
  '1e308',
  '-1e308',
  '1e400',
  '-1e-400',
  '1E+2',
  '9007199254740993',
  '123456789012345678901234567890',
  '0.1e-999',
  '-9223372036854775808',
  '4294967296',
  '1.7976931348623157e308',
  '5e-324',
];
const ODD_STRINGS = [
  '',
  ' ',
  'NaN',
  'Infinity',
  '-Infinity',
  'null',
  'undefined',
  'true',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  '../../..',
  '..\\..\\..',
  'a/b\\c',
  'CON',
  'NUL.json',
  'com1',
  '\u0000',
  'a\u0000b',
  '\u0007\u001b[31mred',
  '\r\n\r\nHTTP/1.1 200 OK',
  '\ud800',
  '\udfff\ud800',
  '\ufeff',
  '\u202etxt.exe',
  'аdmin', // Cyrillic а
  'ｅｃｈｏ',
  '😀'.repeat(50),
  '%00%2e%2e%2f',
  '${jndi:ldap://x}',
  '{{constructor.constructor}}',
  '<script>alert(1)</script>',
  "' OR 1=1 --",
];

export function oddString(r: Rng): string {
  switch (r.int(6)) {
    case 0:
      return 'x'.repeat(r.pick([1025, 10_240, 65_537]));
    case 1:
      return String.fromCharCode(...Array.from({ length: r.range(1, 40) }, () => r.int(0x10000)));
    default:
      return r.pick(ODD_STRINGS);
  }
}

export function nested(depth: number, leaf: unknown = 1, kind: 'array' | 'object' = 'array'): RawJson {
  const leafText = toJson(leaf);
  return kind === 'array'
    ? new RawJson('['.repeat(depth) + leafText + ']'.repeat(depth))
    : new RawJson('{"a":'.repeat(depth) + leafText + '}'.repeat(depth));
}

/** depths around the engine's limit (128) and far above it */
export const DEPTHS = [126, 127, 128, 129, 130, 200, 1000, 10_000, 100_000];

/** any JSON value, biased to the odd */
export function oddValue(r: Rng, budget = 2): unknown {
  switch (r.int(budget > 0 ? 12 : 9)) {
    case 0:
      return null;
    case 1:
      return r.chance(0.5);
    case 2:
      return new RawJson(r.pick(ODD_NUMBERS));
    case 3:
      return r.pick([0, -1, 1, 1.5, 2 ** 31, 2 ** 53 + 2, -(2 ** 53), Number.MAX_SAFE_INTEGER]);
    case 4:
    case 5:
      return oddString(r);
    case 6:
      return [];
    case 7:
      return {};
    case 8:
      return nested(r.pick(DEPTHS.slice(0, 5)), 0, r.chance(0.5) ? 'array' : 'object');
    case 9:
      return Array.from({ length: r.range(1, 4) }, () => oddValue(r, budget - 1));
    case 10:
      return { __proto__x: 1, ['__proto__']: oddValue(r, budget - 1), constructor: { prototype: { polluted: true } } };
    default:
      return Object.fromEntries(
        Array.from({ length: r.range(1, 4) }, () => [r.chance(0.5) ? oddString(r) : 'k', oddValue(r, budget - 1)]),
      );
  }
}

// ---------------------------------------------------------------------------------------------------------------
// JSON-RPC messages

export const TOOLS = ['echo', 'add', 'counter', 'fail'];
const METHODS = [
  'ping',
  'tools/list',
  'tools/call',
  'resources/list',
  'resources/read',
  'resources/templates/list',
  'resources/subscribe',
  'prompts/list',
  'prompts/get',
  'completion/complete',
  'logging/setLevel',
  'initialize',
  'notifications/initialized',
  'notifications/cancelled',
  'notifications/progress',
  'notifications/roots/list_changed',
  'sampling/createMessage',
  'elicitation/create',
  'roots/list',
  'tasks/get',
  'no/such/method',
  'rpc.discover',
  '',
  '__proto__',
  'tools/call/../list',
  'TOOLS/LIST',
  'x'.repeat(10_240),
];

function validParams(r: Rng, method: string): Record<string, unknown> | undefined {
  switch (method) {
    case 'tools/call': {
      const name = r.chance(0.8) ? r.pick(TOOLS) : oddString(r);
      const args =
        name === 'add' ? { a: r.int(100), b: r.int(100) } : name === 'echo' ? { text: `fuzz-${r.int(1000)}` } : {};
      return { name, arguments: args };
    }
    case 'resources/read':
      return { uri: r.pick(['fixture://hello', 'file:///etc/passwd', 'fixture://../../x', oddString(r)]) };
    case 'prompts/get':
      return { name: r.pick(['greet', 'nope']), arguments: { name: 'Ada' } };
    case 'initialize':
      return {
        protocolVersion: r.pick(['2025-11-25', '2025-06-18', '2024-11-05', '1999-01-01']),
        capabilities: {},
        clientInfo: { name: 'fuzz', version: '1' },
      };
    case 'logging/setLevel':
      return { level: r.pick(['debug', 'info', 'emergency', 'bogus']) };
    case 'notifications/cancelled':
      return { requestId: r.int(100), reason: 'fuzz' };
    case 'notifications/progress':
      return { progressToken: r.int(100), progress: 1 };
    default:
      return r.chance(0.5) ? {} : undefined;
  }
}

function oddId(r: Rng): unknown {
  return r.pick<() => unknown>([
    () => new RawJson('1e308'),
    () => new RawJson('-0'),
    () => new RawJson('1e400'),
    () => new RawJson('0.5'),
    () => new RawJson('123456789012345678901234567890'),
    () => 'NaN',
    () => 'Infinity',
    () => 'x'.repeat(10_240),
    () => '',
    () => ({ nested: { id: 1 } }),
    () => [1],
    () => true,
    () => null,
    () => -1,
    () => Number.MAX_SAFE_INTEGER,
    () => 2 ** 53 + 2,
    () => oddString(r),
    () => nested(r.pick(DEPTHS.slice(0, 5))),
  ])();
}

/** a plausible id */
const plainId = (r: Rng): unknown => (r.chance(0.5) ? r.int(1_000_000) : `id-${r.int(1_000_000)}`);

/** a JSON-RPC message as an object (values may be RawJson), valid or broken in one or more fields */
export function rpcMessage(r: Rng, mutations = r.pick([0, 0, 1, 1, 1, 2, 3])): Record<string, unknown> {
  const kind = r.pick(['request', 'request', 'request', 'notification', 'response', 'error']);
  const method = r.chance(0.85) ? r.pick(METHODS.slice(0, 20)) : r.pick(METHODS);
  let m: Record<string, unknown>;
  if (kind === 'request') m = { jsonrpc: '2.0', id: plainId(r), method, params: validParams(r, method) };
  else if (kind === 'notification')
    m = {
      jsonrpc: '2.0',
      method: r.chance(0.7) ? r.pick(METHODS.filter((x) => x.startsWith('notifications/'))) : method,
      params: validParams(r, method),
    };
  // responses to nothing: ids the proxy never sent
  else if (kind === 'response')
    m = {
      jsonrpc: '2.0',
      id: plainId(r),
      result: r.chance(0.5) ? {} : { content: [{ type: 'text', text: 'unsolicited' }] },
    };
  else
    m = {
      jsonrpc: '2.0',
      id: r.chance(0.3) ? null : plainId(r),
      error: { code: r.pick([-32000, -32601, 0, 1e9]), message: 'unsolicited' },
    };
  for (let i = 0; i < mutations; i++) mutate(r, m);
  return m;
}

const FIELDS = ['jsonrpc', 'id', 'method', 'params', 'result', 'error'];

function mutate(r: Rng, m: Record<string, unknown>): void {
  const field = r.pick(FIELDS);
  switch (r.int(9)) {
    case 0:
      delete m[field];
      return;
    case 1:
      m.id = oddId(r);
      return;
    case 2:
      m.jsonrpc = r.pick(['1.0', '2', 2, 2.0, null, '', ' 2.0', '2.0\u0000', oddValue(r)]);
      return;
    case 3:
      m.method = r.pick([42, null, true, [], {}, '', oddString(r), oddValue(r)]);
      return;
    case 4:
      m.params = r.pick<() => unknown>([
        () => [],
        () => 'params',
        () => 1,
        () => null,
        () => nested(r.pick(DEPTHS)),
        () => ({ name: oddValue(r), arguments: oddValue(r) }),
        () => ({ _meta: { progressToken: oddId(r) } }),
      ])();
      return;
    case 5:
      // notification with an id / request without one
      if ('id' in m) delete m.id;
      else m.id = plainId(r);
      if (!('method' in m)) m.method = 'notifications/initialized';
      return;
    case 6:
      m[field] = oddValue(r);
      return;
    case 7:
      m[r.chance(0.5) ? oddString(r) : 'extra'] = oddValue(r);
      return;
    default:
      // both result and error, or method and result
      m.result = {};
      if (r.chance(0.5)) m.error = { code: 1, message: 'both' };
  }
}

// ---------------------------------------------------------------------------------------------------------------
// bodies

const utf8 = (s: string): Buffer => Buffer.from(s, 'utf8');
const INVALID_UTF8 = [
  [0xff],
  [0xfe, 0xff],
  [0xc0, 0x80],
  [0xc3, 0x28],
  [0xe2, 0x82],
  [0xed, 0xa0, 0x80],
  [0xf4, 0x90, 0x80, 0x80],
  [0xf8, 0x88, 0x80, 0x80, 0x80],
  [0x80],
  [0xe0, 0x80, 0xaf],
];

/** a JSON-RPC body (single message or batch), then broken at the text or byte level */
export function rpcBody(r: Rng): { label: string; body: Buffer } {
  const pick = r.int(100);
  // batches
  if (pick < 14) {
    const shape = r.int(7);
    if (shape === 0) return { label: 'batch: empty', body: utf8('[]') };
    if (shape === 1)
      return {
        label: 'batch: 1000 pings',
        body: utf8(toJson(Array.from({ length: 1000 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'ping' })))),
      };
    if (shape === 2)
      return {
        label: 'batch: 1000 notifications',
        body: utf8(
          toJson(Array.from({ length: 1000 }, () => ({ jsonrpc: '2.0', method: 'notifications/initialized' }))),
        ),
      };
    if (shape === 3)
      return { label: 'batch: nested arrays', body: utf8(toJson([[rpcMessage(r, 0)], [[rpcMessage(r, 0)]]])) };
    if (shape === 4)
      return {
        label: 'batch: duplicate ids',
        body: utf8(
          toJson(
            Array.from({ length: r.range(2, 5) }, () => ({
              jsonrpc: '2.0',
              id: 7,
              method: r.pick(['ping', 'tools/list']),
            })),
          ),
        ),
      };
    if (shape === 5)
      return {
        label: 'batch: 1000 responses to nothing',
        body: utf8(
          toJson(Array.from({ length: 1000 }, (_, i) => ({ jsonrpc: '2.0', id: `nothing-${i}`, result: {} }))),
        ),
      };
    return {
      label: 'batch: mixed valid/invalid',
      body: utf8(
        toJson(
          Array.from({ length: r.range(2, 12) }, () =>
            r.chance(0.5) ? rpcMessage(r, 0) : r.chance(0.7) ? rpcMessage(r, 2) : oddValue(r),
          ),
        ),
      ),
    };
  }
  // deep nesting
  if (pick < 22) {
    const depth = r.pick(DEPTHS);
    const where = r.int(4);
    if (where === 0) return { label: `deep nesting ${depth} (top level)`, body: utf8(nested(depth, null).text) };
    if (where === 1)
      return {
        label: `deep nesting ${depth} (in arguments)`,
        body: utf8(
          toJson({
            jsonrpc: '2.0',
            id: 1,
            method: 'tools/call',
            params: { name: 'echo', arguments: { text: nested(depth, 'x', 'object') } },
          }),
        ),
      };
    if (where === 2)
      return {
        label: `deep nesting ${depth} (in id)`,
        body: utf8(toJson({ jsonrpc: '2.0', id: nested(depth), method: 'ping' })),
      };
    return {
      label: `deep nesting ${depth} (brackets in a string)`,
      body: utf8(
        toJson({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'echo', arguments: { text: '['.repeat(depth) } },
        }),
      ),
    };
  }
  // whole bodies that are not a message
  if (pick < 30) {
    const label = r.pick([
      '',
      'null',
      'true',
      '0',
      '"str"',
      '-0',
      '1e400',
      '{}',
      '{"jsonrpc":"2.0"}',
      'NaN',
      'undefined',
      '\ufeff{}',
      ' '.repeat(10_000),
      '{"__proto__":{"jsonrpc":"2.0"}}',
    ]);
    return { label: `not a message: ${JSON.stringify(label.slice(0, 20))}`, body: utf8(label) };
  }
  const message = rpcMessage(r);
  let text = toJson(message);
  // text-level breakage
  if (pick < 50) {
    const how = r.int(9);
    if (how === 0) return { label: 'broken JSON: truncated', body: utf8(text.slice(0, r.int(text.length))) };
    if (how === 1)
      return {
        label: 'broken JSON: bad escape',
        body: utf8(
          text.replace(
            /"(\w)/,
            (_, c: string) => `"${r.pick(['\\x41', '\\u12', '\\ud800', '\\', '\\U0041', '\\\u0000'])}${c}`,
          ),
        ),
      };
    if (how === 2)
      return {
        label: 'broken JSON: trailing garbage',
        body: utf8(text + r.pick([',', '}', ' x', '\u0000', '{}', '\n{"jsonrpc":"2.0","id":2,"method":"ping"}'])),
      };
    if (how === 3) return { label: 'broken JSON: single quotes', body: utf8(text.replace(/"/g, "'")) };
    if (how === 4) return { label: 'broken JSON: trailing comma', body: utf8(text.replace(/}$/, ',}')) };
    if (how === 5)
      return { label: 'duplicate keys', body: utf8(text.replace(/^{/, `{"id":${toJson(oddId(r))},"method":"ping",`)) };
    if (how === 6) return { label: 'JSON with comments', body: utf8(`/* c */${text}// c`) };
    if (how === 7) return { label: 'UTF-16 body', body: Buffer.from('\ufeff' + text, 'utf16le') };
    text = text.replace(/"$/, '');
    return { label: 'unterminated string', body: utf8(text + '"abc') };
  }
  // byte-level breakage: invalid UTF-8 somewhere (inside a string, or anywhere)
  if (pick < 62) {
    const bytes = Buffer.from(r.pick(INVALID_UTF8));
    const buf = utf8(text);
    const inString = text.indexOf('"', 1);
    const at = r.chance(0.6) && inString > 0 ? inString + 1 : r.int(buf.length + 1);
    return {
      label: `invalid UTF-8 ${bytes.toString('hex')}`,
      body: Buffer.concat([buf.subarray(0, at), bytes, buf.subarray(at)]),
    };
  }
  return {
    label: `message (${Object.keys(message)
      .map((k) => k.slice(0, 12))
      .join(',')})`,
    body: utf8(text),
  };
}

// ---------------------------------------------------------------------------------------------------------------
// headers, methods, paths

export const ACCEPT = 'application/json, text/event-stream';
const CONTENT_TYPES = [
  'text/plain',
  'application/json; charset=utf-16',
  'application/jsonx',
  'APPLICATION/JSON',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  '',
  'application/json;' + ';'.repeat(1000),
  'application/json\t',
  '*/*',
];
const ACCEPTS = [
  '*/*',
  'text/event-stream',
  'application/json',
  'text/html',
  '',
  'application/json;q=0, text/event-stream;q=0',
  'x'.repeat(10_000),
  'text/event-stream, application/json, */*;q=0.1',
];
const SESSION_IDS = [
  '',
  'x',
  'bogus-session',
  '00000000-0000-0000-0000-000000000000',
  '../../etc/passwd',
  'x'.repeat(10_000),
  '\u00ff\u00fe',
  'a b',
  '{{SID}}{{SID}}',
  '{{SID}} ',
  ' {{SID}}',
];
const PROTOCOL_VERSIONS = [
  '1999-01-01',
  '',
  'latest',
  '2025-11-25, 2025-06-18',
  '2024-11-05',
  'x'.repeat(5000),
  '2025-13-45',
  '\u00e9',
];
const HOSTS = [
  'evil.example',
  'localhost.evil.example',
  '127.0.0.1.nip.io',
  '[::1',
  '',
  'LOCALHOST',
  '127.0.0.1:99999',
  'x'.repeat(5000),
];
const ORIGINS = [
  'null',
  'http://evil.example',
  'file://',
  'http://localhost.evil.example',
  'chrome-extension://abc',
  'http://127.0.0.1:1',
  'https://[::1]',
  '%',
  'x'.repeat(5000),
];

/** header values a node:http client will send: printable latin1 only */
const headerSafe = (s: string): string => s.replace(/[^\t\x20-\x7e\x80-\xff]/g, '?');

/** odd headers on top of `base`; returns the label of what was changed */
export function oddHeaders(
  r: Rng,
  base: Record<string, string | string[]>,
  extra: Array<[string, () => string | string[]]> = [],
): string {
  const how = r.int(14 + extra.length);
  switch (how) {
    case 0:
      delete base['content-type'];
      return 'no content-type';
    case 1:
      base['content-type'] = r.pick(CONTENT_TYPES);
      return `content-type ${base['content-type'].slice(0, 30)}`;
    case 2:
      base['content-type'] = ['application/json', r.pick(CONTENT_TYPES)];
      return 'duplicate content-type';
    case 3:
      if (r.chance(0.5)) delete base.accept;
      else base.accept = r.pick(ACCEPTS);
      return 'odd accept';
    case 4:
      base['mcp-session-id'] = r.chance(0.3) ? ['{{SID}}', r.pick(SESSION_IDS)] : headerSafe(r.pick(SESSION_IDS));
      return 'bogus mcp-session-id';
    case 5:
      base['mcp-protocol-version'] = r.chance(0.3)
        ? ['2025-11-25', '1999-01-01']
        : headerSafe(r.pick(PROTOCOL_VERSIONS));
      return 'bogus mcp-protocol-version';
    case 6:
      base.host = headerSafe(r.pick(HOSTS));
      return 'odd host';
    case 7:
      base.origin = headerSafe(r.pick(ORIGINS));
      return 'odd origin';
    case 8:
      base['x-fuzz'] = 'v'.repeat(r.pick([8_000, 20_000]));
      return 'huge header value';
    case 9:
      for (let i = 0; i < r.pick([100, 500]); i++) base[`x-fuzz-${i}`] = String(i);
      return 'many headers';
    case 10:
      base['last-event-id'] = headerSafe(r.pick(['', '-1', 'x'.repeat(5000), '999999999999999999999', '../..', '0']));
      return 'odd last-event-id';
    case 11:
      base['content-encoding'] = r.pick(['gzip', 'br', 'deflate', 'identity, gzip']);
      return 'content-encoding (body not encoded)';
    case 12:
      base.expect = '100-continue';
      return 'expect 100-continue';
    case 13:
      base.authorization = headerSafe(
        r.pick([
          'Bearer',
          'Bearer ',
          'Basic Zm9vOmJhcg==',
          `Bearer ${'x'.repeat(9000)}`,
          'Bearer \u00ff',
          'bearer {{TOKEN}}',
        ]),
      );
      return 'odd authorization';
    default: {
      const [name, value] = extra[how - 14];
      base[name] = value();
      return `odd ${name}`;
    }
  }
}

const ODD_METHODS = ['PUT', 'PATCH', 'HEAD', 'OPTIONS', 'TRACE', 'PROPFIND', 'FUZZ', 'get', 'M-SEARCH', 'PURGE'];

/** latin1 bytes (sent raw, i.e. not valid UTF-8 once decoded), %-escapes that do not decode, traversal, huge paths */
const ODD_PATH_TAILS = [
  '%',
  '%E0%A4%A',
  '%ff%fe',
  '%00',
  '..%2f..%2fetc%2fpasswd',
  '\u00ff\u00fe',
  '.well-known/oauth-protected-resource',
  '.well-known/x',
  '?a=%&b',
  '#frag',
  ';jsessionid=1',
  '/',
  '//',
  '.',
  '..',
];

/** encodeURIComponent that survives lone surrogates (they become %EF%BF%BD) */
const encodeLoosely = (text: string): string => encodeURIComponent(text.replace(/[\ud800-\udfff]/g, '\ufffd'));

export function oddPath(r: Rng, bases: string[]): string {
  const base = r.pick(bases);
  switch (r.int(6)) {
    case 0:
      return base + r.pick(ODD_PATH_TAILS);
    case 1:
      return r.pick([
        '//',
        '///mcp',
        '/' + 'a'.repeat(r.pick([2_000, 20_000])),
        '*',
        'http://evil.example/mcp',
        '/%2F%2Fsse',
        '//sse',
        '//messages?sessionId=x',
        '/a/../sse',
        '/\u00ff/sse',
      ]);
    case 2:
      return base.toUpperCase();
    case 3:
      return `${base}?${'q='.repeat(r.pick([1, 500]))}${encodeLoosely(oddString(r)).slice(0, 3000)}`;
    default:
      return base;
  }
}

function odd(r: Rng, base: HttpInput, extraHeaders: Array<[string, () => string | string[]]> = []): HttpInput {
  const labels = [base.label];
  if (r.chance(0.3)) labels.push(oddHeaders(r, base.headers, extraHeaders));
  if (r.chance(0.1)) {
    base.method = r.pick(ODD_METHODS);
    labels.push(`method ${base.method}`);
  }
  if (r.chance(0.08)) base.chunked = true;
  base.label = labels.join(' + ');
  return base;
}

const OVERSIZE = 4 * 1024 * 1024 + 1;
/** a body over the 4 MiB limit: 1 input in 500 (they are costly) */
function oversized(r: Rng): { label: string; body: Buffer; chunked: boolean } | undefined {
  if (!r.chance(0.002)) return undefined;
  const chunked = r.chance(0.5);
  return {
    label: `body > 4 MiB${chunked ? ' (chunked)' : ''}`,
    body: utf8(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"${'x'.repeat(OVERSIZE)}"}}`),
    chunked,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// per endpoint kind

/** Raw HTTP request texts: malformed request lines, header folding, smuggling attempts. Always complete. */
function rawRequest(r: Rng, path: string): RawInput {
  const host = 'Host: 127.0.0.1\r\n';
  const body = '{"jsonrpc":"2.0","id":1,"method":"ping"}';
  const cases: Array<[string, string]> = [
    ['not HTTP', '\u0000\u0001NOT HTTP\r\n\r\n'],
    ['HTTP/0.9', `GET ${path}\r\n\r\n`],
    ['HTTP/2.0 request line', `GET ${path} HTTP/2.0\r\n${host}\r\n`],
    ['HTTP/1.1 no Host', `GET ${path} HTTP/1.1\r\n\r\n`],
    ['two Hosts', `GET ${path} HTTP/1.1\r\n${host}Host: evil.example\r\n\r\n`],
    ['obsolete line folding', `GET ${path} HTTP/1.1\r\n${host}X-A: a\r\n b\r\n\r\n`],
    ['space before colon', `GET ${path} HTTP/1.1\r\n${host}Content-Type : application/json\r\n\r\n`],
    [
      'CL + TE (smuggling)',
      `POST ${path} HTTP/1.1\r\n${host}Content-Type: application/json\r\nContent-Length: ${body.length}\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`,
    ],
    [
      'two Content-Lengths',
      `POST ${path} HTTP/1.1\r\n${host}Content-Type: application/json\r\nContent-Length: 1\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
    ],
    [
      'negative Content-Length',
      `POST ${path} HTTP/1.1\r\n${host}Content-Type: application/json\r\nContent-Length: -1\r\n\r\n`,
    ],
    [
      'bad chunk size',
      `POST ${path} HTTP/1.1\r\n${host}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n${body}\r\n0\r\n\r\n`,
    ],
    ['bare LF line ends', `GET ${path} HTTP/1.1\nHost: 127.0.0.1\n\n`],
    ['NUL in header', `GET ${path} HTTP/1.1\r\n${host}X-A: a\u0000b\r\n\r\n`],
    ['latin1 path bytes', `GET ${path}\u00ff\u00fe HTTP/1.1\r\n${host}\r\n`],
    ['CONNECT', `CONNECT 127.0.0.1:22 HTTP/1.1\r\n${host}\r\n`],
    ['absolute-form target', `GET http://evil.example${path} HTTP/1.1\r\n${host}\r\n`],
    ['asterisk target', `OPTIONS * HTTP/1.1\r\n${host}\r\n`],
    ['pipelined garbage', `GET /healthcheck HTTP/1.1\r\n${host}\r\nGARBAGE\r\n\r\n`],
    [
      'Transfer-Encoding: gzip, chunked',
      `POST ${path} HTTP/1.1\r\n${host}Content-Type: application/json\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n`,
    ],
  ];
  const [label, bytes] = r.pick(cases);
  return { type: 'raw', label: `raw: ${label}`, bytes };
}

/** Streamable HTTP MCP endpoint (`paths`: where it is served; `auth`: headers that reach it, for serve) */
export function mcpInput(r: Rng, opts: { paths: string[]; auth?: (r: Rng) => Record<string, string> }): FuzzInput {
  if (r.chance(0.04)) return rawRequest(r, r.pick(opts.paths));
  const headers: Record<string, string | string[]> = {
    'content-type': 'application/json',
    accept: ACCEPT,
    ...(opts.auth?.(r) ?? {}),
  };
  const big = oversized(r);
  if (big)
    return {
      type: 'http',
      label: big.label,
      method: 'POST',
      path: r.pick(opts.paths),
      headers,
      body: big.body,
      chunked: big.chunked,
      session: true,
    };
  const verb = r.int(100);
  const path = r.chance(0.15) ? oddPath(r, opts.paths) : r.pick(opts.paths);
  if (verb < 8)
    return odd(r, {
      type: 'http',
      label: 'GET stream',
      method: 'GET',
      path,
      headers: { accept: r.chance(0.7) ? 'text/event-stream' : r.pick(ACCEPTS), ...(opts.auth?.(r) ?? {}) },
      session: r.chance(0.7),
    });
  if (verb < 11)
    return odd(r, {
      type: 'http',
      label: 'DELETE',
      method: 'DELETE',
      path,
      headers: { ...(opts.auth?.(r) ?? {}), 'mcp-session-id': headerSafe(r.pick(SESSION_IDS)) },
      session: false,
    });
  const { label, body } = rpcBody(r);
  return odd(r, { type: 'http', label, method: 'POST', path, headers, body, session: r.chance(0.8) }, [
    ['x-mimcp-session', () => headerSafe(r.pick(['', 'bogus', '{{TOKEN}}', 'x'.repeat(5000)]))],
  ]);
}

/** legacy HTTP+SSE: POST …/messages?sessionId= (live, bogus, odd) and GET …/sse variants */
export function legacyInput(r: Rng): FuzzInput {
  if (r.chance(0.03)) return rawRequest(r, r.pick(['/sse', '/messages?sessionId={{LEGACY}}']));
  const big = oversized(r);
  const sid = r.chance(0.75)
    ? '{{LEGACY}}'
    : r.pick([
        '',
        'bogus',
        '00000000-0000-0000-0000-000000000000',
        '%',
        '%E0',
        'x'.repeat(10_000),
        '{{LEGACY}}&sessionId=other',
        '{{LEGACY}}%00',
        '..%2F..',
      ]);
  const prefix = r.chance(0.85) ? '' : r.pick(['/x', '/mcp', '//', '/a/b/c', '/%2e%2e', '/\u00ff']);
  if (big)
    return {
      type: 'http',
      label: big.label,
      method: 'POST',
      path: `${prefix}/messages?sessionId=${sid}`,
      headers: { 'content-type': 'application/json' },
      body: big.body,
      chunked: big.chunked,
    };
  if (r.chance(0.12)) {
    const headers: Record<string, string | string[]> = {
      accept: r.chance(0.7) ? 'text/event-stream' : r.pick(ACCEPTS),
    };
    if (r.chance(0.2)) headers['mcp-session-id'] = headerSafe(r.pick(SESSION_IDS));
    return odd(r, {
      type: 'http',
      label: 'GET /sse',
      method: 'GET',
      path: `${prefix}/sse${r.chance(0.2) ? r.pick(['?', '?x=1', '/', '%00', '?sessionId={{LEGACY}}']) : ''}`,
      headers,
    });
  }
  const { label, body } = rpcBody(r);
  const query = r.chance(0.9)
    ? `?sessionId=${sid}`
    : r.pick(['', '?', '?sessionid={{LEGACY}}', '?sessionId', `?sessionId=${sid}&sessionId=x`]);
  return odd(r, {
    type: 'http',
    label,
    method: 'POST',
    path: `${prefix}/messages${query}`,
    headers: { 'content-type': 'application/json' },
    body,
  });
}

// ---- REST ---------------------------------------------------------------------------------------------------

const UPSTREAM_URLS = [
  'http://127.0.0.1:1/mcp',
  'ftp://127.0.0.1/',
  'javascript:alert(1)',
  'http://',
  'not a url',
  'file:///etc/passwd',
  'http://[::1',
  'https://user:pass@127.0.0.1:1/mcp',
  `http://127.0.0.1:1/${'x'.repeat(5000)}`,
];

function toolRule(r: Rng): Record<string, unknown> {
  const rule: Record<string, unknown> = {
    name: r.chance(0.7) ? `fz${r.int(50)}` : r.pick(['', 'x'.repeat(1025), 'echo', oddString(r)]),
  };
  if (r.chance(0.5)) rule.description = r.chance(0.8) ? 'fuzz tool' : oddValue(r);
  if (r.chance(0.6))
    rule.input_schema = r.pick<() => unknown>([
      () => ({ type: 'object' }),
      () => ({ type: 'array' }),
      () => null,
      () => 'object',
      () => ({ type: 'object', properties: oddValue(r) }),
    ])();
  if (r.chance(0.7)) {
    rule.behavior = r.pick<() => unknown>([
      () => ({ type: 'relay' }),
      () => ({ type: 'override', response: { text: 'fixed' } }),
      () => ({ type: 'override', response: { text: 'a', content: [] } }),
      () => ({ type: 'override', response: { content: [{ type: '' }] } }),
      () => ({
        type: 'override',
        response: { text: 'x', delay_s: r.pick([-1, 601, new RawJson('1e400'), 'soon', 0]) },
      }),
      () => ({ type: 'override', response: { structured_content: oddValue(r), is_error: oddValue(r) } }),
      () => ({
        type: 'inject',
        template: r.pick([
          '{{',
          '}}',
          '{{result}}',
          '{{#each x}}',
          '{{__proto__}}',
          '{{constructor.constructor("x")()}}',
          'x'.repeat(20_000),
        ]),
      }),
      () => ({ type: r.pick(['bogus', '', 42, null]) }),
      () => ({ type: 'relay', extra: 1 }),
      () => null,
      () => oddValue(r),
    ])();
  }
  if (r.chance(0.1)) rule[oddString(r)] = oddValue(r);
  return rule;
}

/** a CreateSession / PutTools body, every field in turn wrong (type, range, format, unknown key) */
function sessionBody(r: Rng, put: boolean): unknown {
  if (r.chance(0.1)) return oddValue(r);
  const body: Record<string, unknown> = {};
  if (!put && r.chance(0.5)) body.name = r.pick<unknown>(['s', 'x'.repeat(201), 42, null, oddString(r)]);
  if (!put && r.chance(0.3)) body.instructions = r.chance(0.7) ? 'do things' : oddValue(r);
  if (r.chance(0.5))
    body.upstream = r.pick<() => unknown>([
      () => null,
      () => ({ url: r.pick(UPSTREAM_URLS) }),
      () => ({ url: 'http://127.0.0.1:1/mcp', headers: r.chance(0.5) ? { a: 1 } : oddValue(r) }),
      () => 'http://127.0.0.1:1/mcp',
      () => ({}),
    ])();
  if (r.chance(0.7))
    body.tools = r.chance(0.85) ? Array.from({ length: r.pick([0, 1, 2, 3, 300]) }, () => toolRule(r)) : oddValue(r);
  if (r.chance(0.3)) body.passthrough = r.chance(0.5) ? r.chance(0.5) : oddValue(r);
  if (!put && r.chance(0.4))
    body.mode = r.pick<unknown>(['record', 'replay', 'hybrid', 'proxy-only', 'bogus', '', 1, null]);
  // cassette folders only inside the run's sandbox (or not a string at all)
  if (!put && r.chance(0.4))
    body.cassette = r.pick<unknown>([
      '{{SANDBOX}}/rest-cassette',
      '{{SANDBOX}}/a/../b',
      '',
      '{{SANDBOX}}/x\u0000y',
      42,
      null,
      ['a'],
    ]);
  if (r.chance(0.15)) body[r.pick(['extra', '__proto__', 'constructor', oddString(r)])] = oddValue(r);
  return body;
}

const REST_PATHS: Array<[string, string[]]> = [
  ['/api/healthz', ['GET', 'POST', 'DELETE']],
  ['/api/sessions', ['GET', 'POST', 'POST', 'POST', 'PUT', 'DELETE']],
  ['/api/sessions/{{VICTIM}}', ['GET', 'DELETE', 'PUT', 'POST']],
  ['/api/sessions/{{VICTIM}}/tools', ['GET', 'PUT', 'PUT', 'PUT', 'POST', 'DELETE']],
  ['/api/sessions/{{VICTIM}}/calls', ['GET', 'PUT', 'DELETE']],
  ['/api/sessions/{{HEALTH}}', ['GET']],
  ['/api/sessions/{{HEALTH}}/tools', ['GET']],
  ['/api/sessions/{{HEALTH}}/calls', ['GET']],
  ['/api/sessions/bogus', ['GET', 'DELETE', 'PUT']],
  ['/api/sessions/bogus/tools', ['PUT', 'GET']],
  ['/api', ['GET', 'POST']],
  ['/api/', ['GET']],
  ['/api/sessions/', ['GET', 'POST']],
  ['/api/sessions/{{VICTIM}}/tools/extra', ['GET']],
  ['/api/sessions/%', ['GET', 'DELETE']],
  ['/api/sessions/%E0%A4%A', ['GET', 'PUT']],
  ['/api/sessions/%00', ['GET']],
  ['/api/sessions/..%2F..', ['GET']],
  ['/api/sessions/\u00ff\u00fe', ['GET']],
  ['/api/sessions/{{VICTIM}}%2Ftools', ['GET', 'PUT']],
  ['/api//sessions', ['GET']],
  ['/api/sessions?x=%', ['GET', 'POST']],
  ['/API/SESSIONS', ['GET']],
  [`/api/sessions/${'x'.repeat(5000)}`, ['GET']],
];

export function restInput(r: Rng): FuzzInput {
  if (r.chance(0.03)) return rawRequest(r, r.pick(['/api/sessions', '/api/healthz']));
  const [path, methods] = r.pick(REST_PATHS);
  const method = r.pick(methods);
  const headers: Record<string, string | string[]> = { 'content-type': 'application/json', accept: 'application/json' };
  const auth = r.int(20);
  if (auth < 16) headers.authorization = 'Bearer {{API}}';
  else if (auth === 16)
    headers.authorization = r.pick([
      'Bearer wrong',
      'Bearer',
      'Basic {{API}}',
      'bearer    {{API}}   ',
      'Bearer {{API}}x',
      `Bearer ${'x'.repeat(9000)}`,
    ]);
  else if (auth === 17) headers.authorization = ['Bearer wrong', 'Bearer {{API}}'];
  // (18, 19: no authorization)
  const big =
    method !== 'GET' && r.chance(0.004)
      ? { label: 'REST body > 1 MiB', body: utf8(`{"name":"${'x'.repeat(1024 * 1024 + 1)}"}`) }
      : undefined;
  let body: Buffer | undefined;
  let label = `${method} ${path.slice(0, 40)}`;
  if (big) {
    body = big.body;
    label += ` ${big.label}`;
  } else if (method === 'POST' || method === 'PUT' || r.chance(0.1)) {
    if (r.chance(0.2)) {
      const broken = rpcBody(r);
      body = broken.body;
      label += ` ${broken.label}`;
    } else {
      body = utf8(toJson(sessionBody(r, method === 'PUT')));
      label += ' schema-violating body';
    }
  }
  return odd(r, { type: 'http', label, method, path: r.chance(0.05) ? oddPath(r, [path]) : path, headers, body });
}

// ---- browser shell: page ------------------------------------------------------------------------------------

const PAGE_PATHS = [
  '/',
  '/api/auth',
  '/index.html',
  '/favicon.svg',
  '/assets/',
  '/assets/../index.html',
  '/%2e%2e/%2e%2e/etc/passwd',
  '/..%5c..%5cwin.ini',
  '/%00',
  '/%',
  '//',
  '/api',
  '/index.html/',
  '/does-not-exist.js',
  '/.env',
  '/assets/%2e%2e%2f%2e%2e%2f%2e%2e%2fetc%2fpasswd',
  '/\u00ff\u00fe',
  `/${'a'.repeat(3000)}`,
];
const TOKEN_QUERIES = [
  '?token={{TOKEN}}',
  '?token={{TOKEN}}',
  '?token={{TOKEN}}',
  '',
  '?token=',
  '?token=wrong',
  '?token=%',
  '?token={{TOKEN}}&token=x',
  '?token=x&token={{TOKEN}}',
  '?TOKEN={{TOKEN}}',
  '?token={{TOKEN}}%00',
  `?token=${'x'.repeat(5000)}`,
  '?token[]={{TOKEN}}',
];

export function pageInput(r: Rng): FuzzInput {
  if (r.chance(0.15)) {
    // WebSocket handshakes, most of them broken
    const key = r.pick(['dGhlIHNhbXBsZSBub25jZQ==', '', 'short', 'x'.repeat(200)]);
    const version = r.pick(['13', '8', '', '99']);
    const origin = r.pick([
      '',
      'Origin: http://evil.example\r\n',
      'Origin: null\r\n',
      'Origin: http://127.0.0.1:{{PORT}}\r\n',
      'Origin: http://127.0.0.1:{{PORT}}\r\nOrigin: http://evil.example\r\n',
    ]);
    const target = r.pick([
      '/api?token={{TOKEN}}',
      '/api',
      '/api?token=wrong',
      '/other?token={{TOKEN}}',
      '//',
      '/api?token=%',
      '/API?token={{TOKEN}}',
    ]);
    const upgrade = r.pick([
      'Upgrade: websocket\r\nConnection: Upgrade\r\n',
      'Upgrade: websocket\r\n',
      'Upgrade: h2c\r\nConnection: Upgrade\r\n',
      'Upgrade: WebSocket\r\nConnection: keep-alive, Upgrade\r\n',
    ]);
    const method = r.pick(['GET', 'GET', 'POST']);
    const cookie = r.chance(0.3)
      ? `Cookie: ${r.pick(['mcp_rewind_token_{{PORT}}={{TOKEN}}', 'mcp_rewind_token_{{PORT}}=wrong', 'mcp_rewind_token_{{PORT}}=%', 'mcp_rewind_token_{{PORT}}=%E0%A4%A', ';;;=;'])}\r\n`
      : '';
    // the credential as the page presents it (a subprotocol), as other clients may (Bearer), and broken forms
    const credential = r.pick([
      '',
      'Sec-WebSocket-Protocol: mcp-rewind.v1, mcp-rewind.token.{{TOKEN}}\r\n',
      'Sec-WebSocket-Protocol: mcp-rewind.v1, mcp-rewind.token.{{TOKEN}}\r\n',
      'Sec-WebSocket-Protocol: mcp-rewind.token.{{TOKEN}}\r\n',
      'Sec-WebSocket-Protocol: mcp-rewind.v1, mcp-rewind.token.wrong\r\n',
      'Sec-WebSocket-Protocol: ,,, ,\r\n',
      `Sec-WebSocket-Protocol: mcp-rewind.token.${'x'.repeat(5000)}\r\n`,
      'Authorization: Bearer {{TOKEN}}\r\n',
      'Authorization: Bearer wrong\r\n',
    ]);
    // a valid handshake is closed by the runner right after the 101
    return {
      type: 'raw',
      label: `upgrade ${method} ${target} v${version} key=${key.length}${cookie ? ' + cookie' : ''}${credential ? ` + ${credential.split(':')[0]}` : ''}`,
      bytes: `${method} ${target} HTTP/1.1\r\nHost: 127.0.0.1:{{PORT}}\r\n${upgrade}Sec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: ${version}\r\n${origin}${cookie}${credential}\r\n`,
    };
  }
  if (r.chance(0.04)) return rawRequest(r, '/?token={{TOKEN}}');
  const path = r.pick(PAGE_PATHS) + r.pick(TOKEN_QUERIES);
  const headers: Record<string, string | string[]> = {};
  if (r.chance(0.2))
    headers.authorization = r.pick([
      'Bearer {{TOKEN}}',
      'Bearer wrong',
      'Bearer',
      `Bearer ${'x'.repeat(9000)}`,
      'Basic {{TOKEN}}',
    ]);
  if (r.chance(0.2))
    headers.cookie = r.pick([
      'mcp_rewind_token_{{PORT}}={{TOKEN}}',
      'mcp_rewind_token_{{PORT}}=wrong',
      'mcp_rewind_token={{TOKEN}}',
      'mcp_rewind_token_{{PORT}}=%',
      `a=${'x'.repeat(8000)}`,
      ';;;=;',
      'mcp_rewind_token_{{PORT}}',
      'mcp_rewind_token_{{PORT}}=%E0%A4%A',
    ]);
  const method = r.chance(0.85) ? r.pick(['GET', 'GET', 'HEAD']) : r.pick(['POST', 'PUT', 'DELETE', ...ODD_METHODS]);
  const body = method === 'GET' || method === 'HEAD' ? undefined : r.chance(0.5) ? rpcBody(r).body : undefined;
  return odd(r, { type: 'http', label: `${method} page`, method, path, headers, body });
}

// ---- browser shell: WebSocket frames ------------------------------------------------------------------------

const SAFE_DIRS = [
  '{{SANDBOX}}/cassette',
  '{{SANDBOX}}/cassette/',
  '{{SANDBOX}}/missing',
  '{{SANDBOX}}/cassette/../cassette',
  '{{SANDBOX}}/file.txt',
];
/** file names inside a cassette folder of the sandbox: `..` never climbs more than the sandbox's own depth */
const ENTRY_FILES = [
  '1 tools-call-echo.json',
  '1 x.json',
  '../x.json',
  '../../y.json',
  'a/b.json',
  'a\\b.json',
  'CON.json',
  'nul',
  'x\u0000.json',
  '.json',
  ' .json',
  '1 ' + 'k'.repeat(300) + '.json',
  '1 \u202e.json',
  'аbc.json',
  '99999999999999999999 x.json',
  '.',
  '..',
];
const ODD_IDS = ['', 'bogus', 'proxy-1', '__proto__', 'constructor', 'x'.repeat(10_000), '../..'];

function field(r: Rng, good: () => unknown): unknown {
  return r.chance(0.7) ? good() : oddValue(r);
}

function wsCommandInput(r: Rng, command: string): unknown {
  switch (command) {
    case 'traffic.snapshot':
      return { limit: r.pick<unknown>([1, 0, -1, 1_000_001, 1.5, 'x', null, new RawJson('1e400'), new RawJson('-0')]) };
    case 'proxies.create':
      return {
        name: field(r, () => r.pick(['p', '', 'x'.repeat(101)])),
        mode: field(r, () => r.pick(['record', 'replay', 'bogus'])),
        upstreamUrl: field(r, () => r.pick(UPSTREAM_URLS)),
        // never a command that could run: a binary that does not exist, or not a string
        upstreamCommand: r.chance(0.2)
          ? r.pick<unknown>(['/nonexistent/mcp-rewind-fuzz-binary --x', 42, '', null])
          : undefined,
        cacheDir: r.chance(0.7) ? r.pick(SAFE_DIRS) : r.pick<unknown>([42, '', null]),
        port: r.pick<unknown>([0, 0, -1, 65536, 1.5, '0', null]),
        rules: r.chance(0.2) ? { tools: [toolRule(r)], instructions: oddValue(r) } : undefined,
      };
    case 'proxies.start':
    case 'proxies.stop':
    case 'proxies.remove':
    case 'rules.get':
      return { id: field(r, () => r.pick(ODD_IDS)) };
    case 'rules.set':
      return {
        id: field(r, () => r.pick(ODD_IDS)),
        rules: r.chance(0.7)
          ? { tools: Array.from({ length: r.range(0, 3) }, () => toolRule(r)), passthrough: oddValue(r) }
          : oddValue(r),
      };
    case 'rules.preview':
      return {
        template: field(r, () =>
          r.pick([
            '{{',
            '}}',
            '{{result}}',
            '{{args.x}}',
            '{{#each result}}{{/each}}',
            '{{__proto__.polluted}}',
            '{{constructor.constructor}}',
            'x'.repeat(100_000),
            '{{'.repeat(10_000),
          ]),
        ),
        result: field(r, () => ({ content: [{ type: 'text', text: 't' }] })),
        args: r.chance(0.5) ? oddValue(r) : undefined,
      };
    case 'cassettes.list':
      return { dir: field(r, () => r.pick(SAFE_DIRS)) };
    case 'cassettes.read':
    case 'cassettes.delete':
    case 'cassettes.duplicate':
      return {
        dir: r.chance(0.85) ? r.pick(SAFE_DIRS) : r.pick<unknown>([42, '', null]),
        file: field(r, () => r.pick(ENTRY_FILES)),
      };
    case 'cassettes.write':
      return {
        dir: r.chance(0.85) ? r.pick(SAFE_DIRS) : r.pick<unknown>([42, '', null]),
        file: field(r, () => r.pick(ENTRY_FILES)),
        text: field(r, () =>
          r.pick(['{}', '', 'not json', toJson(nested(200)), '{"request":{"method":"tools/call"},"response":{}}']),
        ),
      };
    case 'cassettes.rename':
      return {
        dir: r.chance(0.85) ? r.pick(SAFE_DIRS) : r.pick<unknown>([42, '', null]),
        file: field(r, () => r.pick(ENTRY_FILES)),
        key: field(r, () => r.pick(['k', '../k', 'a/b', 'x'.repeat(1000), '\u0000', 'CON'])),
      };
    case 'export.preview':
    case 'export.run':
      // out: always an absolute path in the sandbox (a relative one would land in the working directory)
      return {
        dir: r.chance(0.85) ? r.pick(SAFE_DIRS) : r.pick<unknown>([42, '', null]),
        format: field(r, () => r.pick(['folder', 'file', 'har', 'zip'])),
        out: r.chance(0.85)
          ? r.pick([
              '{{SANDBOX}}/out',
              '{{SANDBOX}}/out.json',
              '{{SANDBOX}}/cassette',
              '{{SANDBOX}}/cassette/inner',
              '{{SANDBOX}}/out\u0000x',
            ])
          : r.pick<unknown>([42, '', null]),
        overwrite: r.chance(0.5) ? oddValue(r) : undefined,
      };
    case 'demo.start':
      // never valid: the demo would start servers and an agent
      return r.pick<unknown>([{ x: 1 }, [], 'start', 42, { __proto__: { x: 1 }, y: 2 }]);
    case 'breakpoints.set':
      return {
        proxyId: field(r, () => r.pick(ODD_IDS)),
        rules: r.chance(0.7)
          ? Array.from({ length: r.pick([0, 1, 3, 201]) }, () => ({
              tool: r.pick(['*', 'echo', oddString(r)]),
              when: r.pick(['request', 'response', 'never', 1]),
              method: r.chance(0.3)
                ? r.pick<unknown>(['initialize', '*', 'resources/read', oddString(r), 7])
                : undefined,
              condition: r.chance(0.4)
                ? r.pick<unknown>([
                    { path: 'params.arguments.text', op: 'regex', value: '^a' },
                    { path: 'params..', op: 'equals', value: 'x' },
                    { path: 'params.arguments.text', op: 'regex', value: '(' },
                    { path: '__proto__.x', op: 'contains', value: '' },
                    { path: 'x', op: 'like', value: 1 },
                    oddValue(r),
                  ])
                : undefined,
            }))
          : oddValue(r),
      };
    case 'breakpoints.resume':
      return {
        id: field(r, () => r.pick(ODD_IDS)),
        arguments: r.chance(0.5) ? oddValue(r) : undefined,
        result: r.chance(0.5) ? oddValue(r) : undefined,
      };
    case 'breakpoints.fail':
      return {
        id: field(r, () => r.pick(ODD_IDS)),
        message: r.chance(0.5) ? r.pick<unknown>(['m', 'x'.repeat(2001), 1]) : undefined,
      };
    case 'settings.set':
      return {
        theme: r.chance(0.4) ? r.pick<unknown>(['dark', 'light', 'system', 'neon', 1]) : undefined,
        defaultCacheDir: r.chance(0.3)
          ? r.pick<unknown>(['{{SANDBOX}}/default', '   ', '', 'x'.repeat(4097), 1])
          : undefined,
        trafficCapacity: r.chance(0.3)
          ? r.pick<unknown>([1000, 999, 1_000_001, 1.5, '1000', new RawJson('1e400')])
          : undefined,
        autoScroll: r.chance(0.2) ? oddValue(r) : undefined,
        recentFolders: r.chance(0.3)
          ? r.pick<unknown>([['{{SANDBOX}}/a'], Array.from({ length: 11 }, () => '{{SANDBOX}}/b'), [''], 'x', [1]])
          : undefined,
        window: r.chance(0.3)
          ? r.pick<unknown>([null, { x: 0, y: 0, width: 99, height: 100, maximized: false }, { x: 1e6 }, 'max'])
          : undefined,
      };
    default:
      return r.chance(0.7) ? {} : oddValue(r);
  }
}

export const WS_COMMANDS = [
  'app.info',
  'proxies.list',
  'proxies.create',
  'proxies.start',
  'proxies.stop',
  'proxies.remove',
  'traffic.snapshot',
  'traffic.clear',
  'rules.get',
  'rules.set',
  'rules.preview',
  'cassettes.list',
  'cassettes.read',
  'cassettes.write',
  'cassettes.delete',
  'cassettes.duplicate',
  'cassettes.rename',
  'export.preview',
  'export.run',
  'demo.start',
  'breakpoints.list',
  'breakpoints.set',
  'breakpoints.resume',
  'breakpoints.fail',
  'settings.get',
  'settings.set',
];
const UNKNOWN_COMMANDS = [
  '',
  'nope',
  'toString',
  'constructor',
  '__proto__',
  'hasOwnProperty',
  'valueOf',
  'app',
  'app.info.x',
  'APP.INFO',
  'proxies.list ',
  'x'.repeat(10_000),
  '\u0000',
];

export const MAX_FRAME_BYTES = 1024 * 1024;

export function wsInput(r: Rng, index: number): WsInput {
  const pick = r.int(100);
  const id = 1_000 + index;
  if (pick < 5)
    return {
      type: 'ws',
      label: 'binary frame',
      frame: Buffer.from(toJson({ id, command: 'app.info', input: {} })),
      binary: true,
      expect: { id: -1 },
    };
  if (pick < 12) {
    const text = r.pick([
      '',
      'null',
      '{',
      '[]',
      '[{"id":1}]',
      '42',
      '"x"',
      'true',
      'NaN',
      '{"id":1,',
      '\ufeff{}',
      oddString(r),
    ]);
    // a bare string that is valid JSON with an object? none of these are objects with an id
    return {
      type: 'ws',
      label: `non-JSON or non-object frame ${JSON.stringify(text.slice(0, 12))}`,
      frame: text,
      binary: false,
      expect: { id: -1 },
    };
  }
  if (pick < 14)
    return {
      type: 'ws',
      label: 'invalid UTF-8 text frame',
      frame: Buffer.concat([
        Buffer.from(`{"id":${id},"command":"app.info","x":"`),
        Buffer.from(r.pick(INVALID_UTF8)),
        Buffer.from('"}'),
      ]),
      binary: false,
      expect: { close: 1007 },
    };
  if (pick < 16)
    return {
      type: 'ws',
      label: 'frame > 1 MiB',
      frame: toJson({ id, command: 'app.info', input: { pad: 'x'.repeat(MAX_FRAME_BYTES + r.int(1000)) } }),
      binary: false,
      expect: { close: 1009 },
    };
  if (pick < 18)
    return {
      type: 'ws',
      label: 'frame just under 1 MiB',
      frame: toJson({
        id,
        command: 'rules.preview',
        input: { template: 'x'.repeat(MAX_FRAME_BYTES - 200), result: {} },
      }),
      binary: false,
      expect: { id },
    };
  if (pick < 26) {
    // ids that cannot be attributed
    const badId = r.pick<unknown>([
      undefined,
      'x',
      '1',
      1.5,
      new RawJson('1e308'),
      new RawJson('1e400'),
      null,
      [1],
      { id: 1 },
      2 ** 53,
      new RawJson('-1e-400'),
      true,
    ]);
    return {
      type: 'ws',
      label: `frame with id ${badId === undefined ? '(none)' : toJson(badId)}`,
      frame: toJson({ id: badId, command: 'app.info', input: {} }),
      binary: false,
      expect: { id: -1 },
    };
  }
  if (pick < 34) {
    const command = r.pick<unknown>([...UNKNOWN_COMMANDS, 42, null, ['app.info'], { x: 1 }, undefined]);
    return {
      type: 'ws',
      label: `unknown command ${toJson(command ?? null).slice(0, 20)}`,
      frame: toJson({ id, command, input: {} }),
      binary: false,
      expect: { id },
    };
  }
  if (pick < 40) {
    const depth = r.pick(DEPTHS.slice(0, 8));
    return {
      type: 'ws',
      label: `input nested ${depth} deep`,
      frame: toJson({
        id,
        command: r.pick(['settings.set', 'rules.preview', 'app.info', 'breakpoints.resume']),
        input: nested(depth, 1, r.chance(0.5) ? 'array' : 'object'),
      }),
      binary: false,
      expect: { id },
    };
  }
  const command = r.pick(WS_COMMANDS);
  const input = r.chance(0.1) ? oddValue(r) : wsCommandInput(r, command);
  const frame: Record<string, unknown> = { id, command, input };
  if (r.chance(0.05)) frame.extra = oddValue(r);
  if (r.chance(0.03)) delete frame.input;
  return { type: 'ws', label: `${command} with a hostile input`, frame: toJson(frame), binary: false, expect: { id } };
}

/** every generator by endpoint kind, for the runner */
export function generate(
  kind: EndpointKind,
  r: Rng,
  index: number,
  opts: { mcpPaths?: string[]; mcpAuth?: (r: Rng) => Record<string, string> } = {},
): FuzzInput {
  switch (kind) {
    case 'mcp':
      return mcpInput(r, { paths: opts.mcpPaths ?? ['/mcp'], auth: opts.mcpAuth });
    case 'legacy':
      return legacyInput(r);
    case 'rest':
      return restInput(r);
    case 'page':
      return pageInput(r);
    case 'ws':
      return wsInput(r, index);
  }
}
