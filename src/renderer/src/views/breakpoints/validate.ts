import type { BreakpointStage } from '../../../../shared/breakpoints.js';
import { resultProblems } from '../../../../shared/insight/result-check.js';

export type Checked = { ok: true; value: Record<string, unknown> } | { ok: false; message: string };

/**
 * The editor's text as the edit a paused call resumes with: a JSON object; for a result, a CallToolResult by the
 * protocol's own schema for the call's revision (the SDK's; the engine checks again on Resume).
 */
export function checkEdit(text: string, stage: BreakpointStage, protocolVersion?: string): Checked {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, message: `not JSON: ${(error as Error).message}` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return {
      ok: false,
      message: stage === 'request' ? 'arguments must be a JSON object' : 'a result must be a JSON object',
    };
  }
  if (stage === 'response') {
    const problems = resultProblems('tools/call', value, protocolVersion);
    if (problems.length > 0) return { ok: false, message: `not a CallToolResult: ${problems.join('; ')}` };
  }
  return { ok: true, value: value as Record<string, unknown> };
}
