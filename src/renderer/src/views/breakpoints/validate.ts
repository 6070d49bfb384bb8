import type { BreakpointStage } from '../../../../shared/breakpoints.js';
import { resultName } from '../../../../shared/breakpoints.js';
import { resultProblems } from '../../../../shared/insight/result-check.js';

export type Checked = { ok: true; value: Record<string, unknown> } | { ok: false; message: string };

/**
 * The editor's text as the edit a paused call resumes with: a JSON object; for a result, the method's result type by the
 * protocol's own schema for the call's revision (the SDK's; the engine checks again on Resume).
 */
export function checkEdit(
  text: string,
  stage: BreakpointStage,
  protocolVersion?: string,
  method = 'tools/call',
): Checked {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, message: `not JSON: ${(error as Error).message}` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return {
      ok: false,
      message:
        stage === 'response'
          ? 'a result must be a JSON object'
          : method === 'tools/call'
            ? 'arguments must be a JSON object'
            : 'params must be a JSON object',
    };
  }
  if (stage === 'response') {
    const problems = resultProblems(method, value, protocolVersion);
    if (problems.length > 0) return { ok: false, message: `not a ${resultName(method)}: ${problems.join('; ')}` };
  }
  return { ok: true, value: value as Record<string, unknown> };
}
