import { CallToolResultShapeSchema } from '../../../../shared/breakpoints.js'
import type { BreakpointStage } from '../../../../shared/breakpoints.js'

export type Checked = { ok: true; value: Record<string, unknown> } | { ok: false; message: string }

/** The editor's text as the edit a paused call resumes with: a JSON object; for a result, a CallToolResult shape. */
export function checkEdit(text: string, stage: BreakpointStage): Checked {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    return { ok: false, message: `not JSON: ${(error as Error).message}` }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, message: stage === 'request' ? 'arguments must be a JSON object' : 'a result must be a JSON object' }
  }
  if (stage === 'response') {
    const parsed = CallToolResultShapeSchema.safeParse(value)
    if (!parsed.success) {
      const issue = parsed.error.issues[0]
      const at = issue.path.length ? issue.path.join('.') : 'result'
      return { ok: false, message: `not a CallToolResult: ${at}: ${issue.message}` }
    }
  }
  return { ok: true, value: value as Record<string, unknown> }
}
