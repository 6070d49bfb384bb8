/**
 * Every message of an exchange against the protocol's own schemas for the exchange's revision (schemas.ts): the
 * request, the answer (result or error), and what streamed before it (notifications, server→client requests and the
 * client's replies). Each schema problem becomes a finding with its JSON path.
 */
import { eraOf, type Era } from '../mcp-protocol.js';
import type { ExchangeEvent } from '../traffic.js';
import { finding, type Finding, type RuleId } from './findings.js';
import { schemasOf, type WireSchema, type ZodIssueLike } from './schemas.js';

/** `response.result` + ['content', 0, 'type'] → `response.result.content[0].type` */
export function joinPath(base: string, segments: readonly PropertyKey[]): string {
  let out = base;
  for (const s of segments)
    out +=
      typeof s === 'number'
        ? `[${s}]`
        : /^[A-Za-z_$][\w$]*$/.test(String(s))
          ? `${out ? '.' : ''}${String(s)}`
          : `[${JSON.stringify(String(s))}]`;
  return out;
}

function describeIssue(issue: ZodIssueLike): string {
  if (issue.code === 'invalid_union') return 'matches none of the shapes the protocol allows here';
  return issue.message.replace(/^Invalid input: /, '');
}

function check(schema: WireSchema | undefined, value: unknown, rule: RuleId, base: string, source: string): Finding[] {
  if (!schema) return [];
  const parsed = schema.safeParse(value);
  if (parsed.success) return [];
  return parsed.error.issues
    .slice(0, 20)
    .map((issue) => finding(rule, joinPath(base, issue.path), `${describeIssue(issue)} (${source})`));
}

/** The era whose schemas judge the exchange: its protocol version, else what the request's `_meta` says, else legacy. */
export function eraOfExchange(event: Pick<ExchangeEvent, 'protocolVersion' | 'request'>): Era {
  const meta = (event.request.params?._meta as Record<string, unknown> | undefined)?.[
    'io.modelcontextprotocol/protocolVersion'
  ];
  return eraOf(event.protocolVersion ?? (typeof meta === 'string' ? meta : undefined)) ?? 'legacy';
}

function resultSchemaFor(
  method: string,
  params: Record<string, unknown> | undefined,
  result: Record<string, unknown>,
  era: Era,
): WireSchema | undefined {
  const schemas = schemasOf(era);
  if (result.resultType === 'input_required') return undefined; // 2026-07-28 MRTR: the input requests, not the result yet
  if (params?.task !== undefined && schemas.createTaskResult) return schemas.createTaskResult;
  return schemas.results.get(method);
}

function checkStream(event: ExchangeEvent, era: Era): Finding[] {
  const schemas = schemasOf(era);
  const out: Finding[] = [];
  const asked = new Map<unknown, string>();
  event.stream.forEach((message, i) => {
    const m = message as {
      id?: unknown;
      method?: string;
      params?: Record<string, unknown>;
      result?: Record<string, unknown>;
      error?: unknown;
    };
    const base = `stream[${i}]`;
    if (typeof m.method === 'string' && m.id !== undefined) {
      asked.set(m.id, m.method);
      out.push(
        ...check(
          schemas.serverRequests.get(m.method),
          { method: m.method, params: m.params },
          'schema.request',
          base,
          schemas.source,
        ),
      );
    } else if (typeof m.method === 'string') {
      const schema = schemas.serverNotifications.get(m.method) ?? schemas.clientNotifications.get(m.method);
      out.push(...check(schema, { method: m.method, params: m.params }, 'schema.notification', base, schemas.source));
    } else if (m.result !== undefined) {
      const method = asked.get(m.id);
      if (method)
        out.push(...check(schemas.results.get(method), m.result, 'schema.result', `${base}.result`, schemas.source));
    } else if (m.error !== undefined) {
      out.push(...check(schemas.errorResponse, message, 'schema.error', base, schemas.source));
    }
  });
  return out;
}

/** Schema findings of the request (a pure function of its method, params and revision). */
export function checkRequestSchema(event: ExchangeEvent): Finding[] {
  const schemas = schemasOf(eraOfExchange(event));
  const { method, params } = event.request;
  return check(schemas.clientRequests.get(method), { method, params }, 'schema.request', 'request', schemas.source);
}

/** Schema findings of the answer (a pure function of the request's method, the answer and the revision). */
export function checkAnswerSchema(event: ExchangeEvent): Finding[] {
  const era = eraOfExchange(event);
  const schemas = schemasOf(era);
  const response = event.response as { result?: Record<string, unknown>; error?: unknown } | undefined;
  if (response?.error !== undefined)
    return check(schemas.errorResponse, response, 'schema.error', 'response', schemas.source);
  if (response?.result === undefined) return [];
  const schema = resultSchemaFor(event.request.method, event.request.params, response.result, era);
  return check(schema, response.result, 'schema.result', 'response.result', schemas.source);
}

/** Schema findings of what streamed before the answer. */
export const checkStreamSchemas = (event: ExchangeEvent): Finding[] =>
  event.stream.length ? checkStream(event, eraOfExchange(event)) : [];

/** Schema findings of an exchange's messages (paths from the exchange's root: `request…`, `response…`, `stream[i]…`). */
export function checkSchemas(event: ExchangeEvent): Finding[] {
  return [...checkRequestSchema(event), ...checkAnswerSchema(event), ...checkStreamSchemas(event)];
}
