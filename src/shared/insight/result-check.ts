/**
 * A result as the protocol's own schema for its revision judges it (schemas.ts: the SDK v1's for the 2025 revisions,
 * `@modelcontextprotocol/core`'s for 2026-07-28) — what the cassette and breakpoint editors accept. A union's problems
 * are those of the shape the value meant (its `type` matched), so `{ "type": "text" }` says that `text` is missing.
 */
import { eraOf } from '../mcp-protocol.js';
import { joinPath } from './protocol.js';
import { schemasOf, type ZodIssueLike } from './schemas.js';

interface Problem {
  path: readonly PropertyKey[];
  message: string;
}

/** A failed parse's issues; a union's replaced by those of the branch whose `type` the value has. */
function leafIssues(issues: readonly ZodIssueLike[], prefix: readonly PropertyKey[] = []): Problem[] {
  const out: Problem[] = [];
  for (const issue of issues) {
    const path = [...prefix, ...issue.path];
    if (issue.code === 'invalid_union' && issue.errors?.length) {
      const meant = issue.errors.filter(
        (branch) => !branch.some((i) => i.code === 'invalid_value' && i.path.length === 1 && i.path[0] === 'type'),
      );
      if (meant.length === 1 && meant[0].length > 0) {
        out.push(...leafIssues(meant[0], path));
        continue;
      }
    }
    out.push({
      path,
      message: issue.code === 'invalid_union' ? 'matches none of the shapes the protocol allows here' : issue.message,
    });
  }
  return out;
}

/**
 * What is wrong with `result` as the answer to `method` in `protocolVersion` (undefined: the 2025 revisions), each as
 * "result.content[0].text: Invalid input: expected string, received undefined"; [] when the schema accepts it.
 */
export function resultProblems(method: string, result: unknown, protocolVersion?: string, base = 'result'): string[] {
  const schema = schemasOf(eraOf(protocolVersion) ?? 'legacy').results.get(method);
  if (!schema) return [];
  const parsed = schema.safeParse(result);
  if (parsed.success) return [];
  return leafIssues(parsed.error.issues)
    .slice(0, 10)
    .map((p) => `${joinPath(base, p.path)}: ${p.message}`);
}

/** "2025-11-25, @modelcontextprotocol/sdk/types.js": whose schema judged, for messages. */
export function resultSchemaSource(protocolVersion?: string): string {
  return `${protocolVersion ?? 'the 2025 revisions'}, ${schemasOf(eraOf(protocolVersion) ?? 'legacy').source}`;
}
