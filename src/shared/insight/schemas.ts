/**
 * The protocol's own schemas, per era: the SDK v1's zod schemas (`@modelcontextprotocol/sdk/types.js`) for the
 * 2024-11-05 … 2025-11-25 revisions, the v2 SDK's (`@modelcontextprotocol/core`) for 2026-07-28. Nothing here copies
 * the spec: which schema checks which method is read from the packages themselves — the request and notification
 * unions give each method's schema, and a request's result schema is the export named after it
 * (`CallToolRequestSchema` → `CallToolResultSchema`; none: the empty result).
 */
import * as v2 from '@modelcontextprotocol/core';
import * as v1 from '@modelcontextprotocol/sdk/types.js';
import type { Era } from '../mcp-protocol.js';

/** What the checks need of a zod schema. */
export interface WireSchema {
  safeParse(value: unknown): { success: true } | { success: false; error: { issues: readonly ZodIssueLike[] } };
}
export interface ZodIssueLike {
  code: string;
  path: readonly PropertyKey[];
  message: string;
  errors?: readonly (readonly ZodIssueLike[])[];
}

export interface EraSchemas {
  /** client → server requests (the exchange's request) */
  clientRequests: ReadonlyMap<string, WireSchema>;
  /** server → client requests (sampling, elicitation, roots, ping) in an exchange's stream */
  serverRequests: ReadonlyMap<string, WireSchema>;
  /** the result schema of each request method, both directions */
  results: ReadonlyMap<string, WireSchema>;
  serverNotifications: ReadonlyMap<string, WireSchema>;
  clientNotifications: ReadonlyMap<string, WireSchema>;
  errorResponse: WireSchema;
  createTaskResult?: WireSchema;
  emptyResult: WireSchema;
  /** the package the schemas come from, for messages */
  source: string;
}

type SchemaModule = Record<string, unknown>;
interface UnionLike {
  options: Array<{ shape?: { method?: { value?: unknown } } }>;
}

function methodOf(schema: unknown): string | undefined {
  const value = (schema as { shape?: { method?: { value?: unknown } } })?.shape?.method?.value;
  return typeof value === 'string' ? value : undefined;
}

function byMethod(union: unknown): Map<string, WireSchema> {
  const map = new Map<string, WireSchema>();
  for (const option of (union as UnionLike).options) {
    const method = methodOf(option);
    if (method) map.set(method, option as unknown as WireSchema);
  }
  return map;
}

/** Each request method's result schema: the export named after its request schema, else the empty result. */
function resultsOf(mod: SchemaModule, methods: Iterable<string>): Map<string, WireSchema> {
  const names = new Map<string, string>();
  for (const [name, value] of Object.entries(mod)) {
    const method = name.endsWith('RequestSchema') ? methodOf(value) : undefined;
    if (method) names.set(method, name.slice(0, -'RequestSchema'.length));
  }
  const results = new Map<string, WireSchema>();
  for (const method of methods) {
    const base = names.get(method);
    // sampling with tools answers CreateMessageResultWithTools, a superset of CreateMessageResult
    const schema =
      (base && (mod[`${base}ResultWithToolsSchema`] ?? mod[`${base}ResultSchema`])) ?? mod.EmptyResultSchema;
    results.set(method, schema as WireSchema);
  }
  return results;
}

function eraSchemas(mod: SchemaModule, source: string, errorResponse: unknown): EraSchemas {
  const clientRequests = byMethod(mod.ClientRequestSchema);
  const serverRequests = byMethod(mod.ServerRequestSchema);
  return {
    clientRequests,
    serverRequests,
    results: resultsOf(mod, [...clientRequests.keys(), ...serverRequests.keys()]),
    serverNotifications: byMethod(mod.ServerNotificationSchema),
    clientNotifications: byMethod(mod.ClientNotificationSchema),
    errorResponse: errorResponse as WireSchema,
    createTaskResult: mod.CreateTaskResultSchema as WireSchema | undefined,
    emptyResult: mod.EmptyResultSchema as WireSchema,
    source,
  };
}

let cache: Partial<Record<Era, EraSchemas>> = {};

/** The schemas of an era (built once). */
export function schemasOf(era: Era): EraSchemas {
  const made = cache[era];
  if (made) return made;
  const built =
    era === 'modern'
      ? eraSchemas(v2 as unknown as SchemaModule, '@modelcontextprotocol/core', v2.JSONRPCErrorResponseSchema)
      : eraSchemas(v1 as unknown as SchemaModule, '@modelcontextprotocol/sdk/types.js', v1.JSONRPCErrorResponseSchema);
  cache = { ...cache, [era]: built };
  return built;
}

/** The content block types an era allows (the `type` literals of its ContentBlock union). */
export function contentTypesOf(era: Era): ReadonlySet<string> {
  const union = (era === 'modern' ? v2.ContentBlockSchema : v1.ContentBlockSchema) as unknown as {
    options: Array<{ shape?: { type?: { value?: unknown } } }>;
  };
  return new Set(union.options.map((o) => o.shape?.type?.value).filter((t): t is string => typeof t === 'string'));
}
