import { useEffect, useState } from 'react';
import { api } from '../api/current.js';
import { toolInputSchema } from '../models/input-schema.js';
import { checkSchema } from '../stores/verbs.js';
import { useTraffic } from '../stores/traffic.js';

type Schema = Record<string, unknown>;
export type SchemaProblems = Array<{ path: string; message: string }>;

const CHECK_DEBOUNCE_MS = 200;
const NONE: SchemaProblems = [];

/**
 * A tool's inputSchema: from the newest tools/list of the first of `seenIn` (proxy ids) that the timeline holds one
 * for, else from the merged tool list (upstream + rules) of the proxy `ask`, asked once.
 */
export function useToolSchema(
  tool: string | undefined,
  seenIn: Array<string | undefined>,
  ask: string | undefined,
): Schema | undefined {
  const seen = useTraffic((s) => {
    if (!tool) return undefined;
    for (const id of seenIn) {
      const found = toolInputSchema(s.exchanges, id, tool);
      if (found) return found;
    }
    return undefined;
  }) as Schema | undefined;
  const [listed, setListed] = useState<Schema>();
  useEffect(() => {
    if (seen || !tool || !ask) return;
    let live = true;
    api()
      .call('rules.get', { id: ask })
      .then((answer) => live && setListed(answer.tools.find((t) => t.name === tool)?.inputSchema))
      .catch(() => {});
    return () => {
      live = false;
    };
  }, [seen, tool, ask]);
  return seen ?? listed;
}

/** `value` checked against `schema` by the engine (ajv), debounced while typing; [] without a schema or when off. */
export function useSchemaProblems(schema: Schema | undefined, value: unknown, enabled = true): SchemaProblems {
  const [problems, setProblems] = useState<SchemaProblems>([]);
  useEffect(() => {
    if (!schema || !enabled) return;
    let live = true;
    const timer = setTimeout(() => {
      checkSchema(schema, value ?? {})
        .then((found) => live && setProblems(found))
        .catch(() => live && setProblems([]));
    }, CHECK_DEBOUNCE_MS);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [schema, value, enabled]);
  return schema && enabled ? problems : NONE;
}

/** "a.b: must be number" — one problem per line of a short note */
export const problemText = (p: { path: string; message: string }): string =>
  p.path ? `${p.path}: ${p.message}` : p.message;
