import type { JSX } from 'react'

/** Breakpoints on tools/call (placeholder until it is built); shown in the Timeline view. */
export function BreakpointsPanel(): JSX.Element | null {
  return null
}
