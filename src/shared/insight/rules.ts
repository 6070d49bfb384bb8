/**
 * The rules a schema cannot say (issue 26): they need the session (the tool list it was given, the ids and cursors it
 * used) or compare messages with each other. Each takes an exchange and the session's state, and answers findings.
 */
import type { ExchangeEvent } from '../traffic.js';
import { finding, type Finding } from './findings.js';
import { eraOfExchange } from './protocol.js';
import { contentTypesOf } from './schemas.js';

export type Tool = Record<string, unknown> & { name?: unknown; inputSchema?: unknown; outputSchema?: unknown };

/** What a session has shown so far. */
export interface SessionState {
  /** the tools of the latest tools/list (all its pages) */
  tools: Map<string, Tool>;
  /** request ids the client used */
  ids: Set<string>;
  /** per list method: the cursors of the current pagination chain */
  cursors: Map<string, Set<string>>;
}

export const newSession = (): SessionState => ({ tools: new Map(), ids: new Set(), cursors: new Map() });

/** A JSON Schema check (ajv in the engine): each problem with its path from the value's root. */
export type SchemaValidator = (
  schema: Record<string, unknown>,
  value: unknown,
) => Array<{ path: string; message: string }>;

type Result = Record<string, unknown>;
const resultOf = (e: ExchangeEvent): Result | undefined =>
  e.response && 'result' in e.response ? e.response.result : undefined;

/** Codes the protocol (or mcp-rewind itself) answers a tools/call with; any other is the tool's own failure. */
const PROTOCOL_CODES = new Set([
  -32700, -32600, -32601, -32602, -32001, -32002, -32004, -32005, -32006, -32020, -32021, -32022, -32042, -32800,
]);
/** 2025-11-25 "Tool names": 1–128 of A-Z a-z 0-9 _ - . */
const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;
const LIST_METHODS = new Set([
  'tools/list',
  'prompts/list',
  'resources/list',
  'resources/templates/list',
  'tasks/list',
]);

function toolCallRules(e: ExchangeEvent, session: SessionState, validate: SchemaValidator): Finding[] {
  const out: Finding[] = [];
  const error = e.response && 'error' in e.response ? e.response.error : undefined;
  if (error && !PROTOCOL_CODES.has(error.code))
    out.push(
      finding(
        'tool.error-as-jsonrpc',
        'response.error.code',
        `tools/call failed with JSON-RPC error ${error.code}: a tool's own failure belongs in the result with isError: true, so the model can see it`,
      ),
    );
  const result = resultOf(e);
  if (!result) return out;
  if (result.isError === true && Array.isArray(result.content) && result.content.length === 0)
    out.push(
      finding('tool.is-error-empty', 'response.result.content', 'isError: true with no content saying what went wrong'),
    );
  const tool = session.tools.get(String(e.request.params?.name ?? ''));
  const outputSchema = tool?.outputSchema;
  if (result.isError === true || !outputSchema || typeof outputSchema !== 'object') return out;
  if (result.structuredContent === undefined) {
    out.push(
      finding(
        'tool.output-schema',
        'response.result.structuredContent',
        'the tool declares an outputSchema, but the result has no structuredContent',
      ),
    );
    return out;
  }
  for (const p of validate(outputSchema as Record<string, unknown>, result.structuredContent).slice(0, 20))
    out.push(
      finding(
        'tool.output-schema',
        `response.result.structuredContent${p.path ? (p.path.startsWith('[') ? p.path : `.${p.path}`) : ''}`,
        `${p.message} (outputSchema of ${tool?.name as string})`,
      ),
    );
  return out;
}

/** Content blocks whose type the revision does not know (tools/call results, prompts/get messages): depends on the answer only. */
export function contentRules(e: ExchangeEvent): Finding[] {
  const result = resultOf(e);
  if (!result) return [];
  const allowed = contentTypesOf(eraOfExchange(e));
  const out: Finding[] = [];
  const checkBlock = (block: unknown, path: string): void => {
    const type = (block as { type?: unknown } | null)?.type;
    if (typeof type !== 'string' || !allowed.has(type))
      out.push(
        finding(
          'content.unknown-type',
          path,
          `content type ${JSON.stringify(type ?? null)} is not one of ${[...allowed].join(', ')}`,
        ),
      );
  };
  if (e.method === 'tools/call' && Array.isArray(result.content))
    result.content.forEach((b, i) => checkBlock(b, `response.result.content[${i}]`));
  if (e.method === 'prompts/get' && Array.isArray(result.messages))
    result.messages.forEach((m, i) =>
      checkBlock((m as { content?: unknown })?.content, `response.result.messages[${i}].content`),
    );
  return out;
}

function streamRules(e: ExchangeEvent): Finding[] {
  const out: Finding[] = [];
  const sent = (e.request.params?._meta as { progressToken?: unknown } | undefined)?.progressToken;
  const asked = new Set<unknown>();
  e.stream.forEach((message, i) => {
    const m = message as { id?: unknown; method?: string; params?: { progressToken?: unknown } };
    // a cassette's entry keeps no progress token of its request (replay gives the live request's): nothing to compare
    if (
      m.method === 'notifications/progress' &&
      m.params?.progressToken !== sent &&
      !(sent === undefined && e.source === 'cache')
    )
      out.push(
        finding(
          'progress.unknown-token',
          `stream[${i}].params.progressToken`,
          sent === undefined
            ? `progress for token ${JSON.stringify(m.params?.progressToken)}, but the request asked for no progress`
            : `progress for token ${JSON.stringify(m.params?.progressToken)}, but the request's token is ${JSON.stringify(sent)}`,
        ),
      );
    if (typeof m.method === 'string' && m.id !== undefined) asked.add(m.id);
    else if (m.method === undefined && !asked.has(m.id))
      out.push(
        finding(
          'notification.answered',
          `stream[${i}].id`,
          `a reply with id ${JSON.stringify(m.id ?? null)} answers no request of this exchange`,
        ),
      );
  });
  return out;
}

function idRule(e: ExchangeEvent, session: SessionState): Finding[] {
  if (e.sessionId === undefined) return []; // no session: ids need only be unique among requests in flight
  const id = `${typeof e.request.id}:${String(e.request.id)}`;
  if (!session.ids.has(id)) {
    if (session.ids.size < 100_000) session.ids.add(id);
    return [];
  }
  return [
    finding('id.reused', 'request.id', `request id ${JSON.stringify(e.request.id)} was used before in this session`),
  ];
}

function toolListRules(e: ExchangeEvent, session: SessionState): Finding[] {
  const tools = resultOf(e)?.tools;
  if (e.method !== 'tools/list' || !Array.isArray(tools)) return [];
  const out: Finding[] = [];
  if (e.request.params?.cursor === undefined) session.tools = new Map();
  (tools as Tool[]).forEach((tool, i) => {
    const at = `response.result.tools[${i}]`;
    const name = typeof tool?.name === 'string' ? tool.name : undefined;
    if (name !== undefined && !TOOL_NAME.test(name))
      out.push(
        finding(
          'tool.name-invalid',
          `${at}.name`,
          `tool name ${JSON.stringify(name)} is not 1–128 of A-Z a-z 0-9 _ - .`,
        ),
      );
    if (name !== undefined && session.tools.has(name))
      out.push(finding('tool.name-duplicate', `${at}.name`, `a second tool named ${JSON.stringify(name)}`));
    const schema = tool?.inputSchema as { type?: unknown } | undefined;
    if (!schema || typeof schema !== 'object' || Array.isArray(schema) || schema.type !== 'object')
      out.push(
        finding(
          'tool.input-schema',
          `${at}.inputSchema`,
          `inputSchema must be a JSON Schema of type "object" (got ${schema === undefined ? 'none' : JSON.stringify(schema?.type ?? schema)})`,
        ),
      );
    if (name !== undefined && !session.tools.has(name)) session.tools.set(name, tool);
  });
  return out;
}

function cursorRule(e: ExchangeEvent, session: SessionState): Finding[] {
  if (!LIST_METHODS.has(e.method)) return [];
  const cursor = e.request.params?.cursor;
  let chain = session.cursors.get(e.method);
  if (cursor === undefined || !chain) session.cursors.set(e.method, (chain = new Set()));
  if (typeof cursor === 'string') chain.add(cursor);
  const next = resultOf(e)?.nextCursor;
  if (typeof next !== 'string' || !chain.has(next)) return [];
  return [
    finding(
      'pagination.cursor-loop',
      'response.result.nextCursor',
      `nextCursor ${JSON.stringify(next)} was asked for already in this listing: a client following it never ends`,
    ),
  ];
}

/**
 * The session rules of one exchange, in order; the session's state is updated with what the exchange showed. The
 * content rule, which depends on the answer alone, is separate (contentRules): the analyzer remembers its findings.
 */
export function checkRules(e: ExchangeEvent, session: SessionState, validate: SchemaValidator): Finding[] {
  return [
    ...idRule(e, session),
    ...(e.method === 'tools/call' ? toolCallRules(e, session, validate) : []),
    ...(e.stream.length ? streamRules(e) : []),
    ...toolListRules(e, session),
    ...cursorRule(e, session),
  ];
}
