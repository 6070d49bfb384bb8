import type { JSX } from 'react';
import { BreakpointsDrawer } from './breakpoints/BreakpointsDrawer.js';
import { NewProxyDialog } from './timeline/NewProxyDialog.js';
import { ProxiesBar } from './timeline/ProxiesBar.js';
import { Timeline } from './timeline/Timeline.js';
import { ComposeDrawer } from './timeline/verbs/ComposeDrawer.js';
import { OpenFileDialog } from './timeline/verbs/FileDialogs.js';

/** The workspace: proxies as a compact bar, the traffic filling the rest, breakpoints in a drawer, New proxy in a dialog. */
export function TimelineView(): JSX.Element {
  return (
    <div className="workspace">
      <ProxiesBar />
      <Timeline />
      <BreakpointsDrawer />
      <ComposeDrawer />
      <NewProxyDialog />
      <OpenFileDialog />
    </div>
  );
}
