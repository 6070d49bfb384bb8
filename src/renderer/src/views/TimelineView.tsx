import type { JSX } from 'react'
import { ProxiesPanel } from './ProxiesPanel.js'
import { BreakpointsPanel } from './BreakpointsPanel.js'
import { Timeline } from './timeline/Timeline.js'

export function TimelineView(): JSX.Element {
  return (
    <>
      <ProxiesPanel />
      <BreakpointsPanel />
      <Timeline />
    </>
  )
}
