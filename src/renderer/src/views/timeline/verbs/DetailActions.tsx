import { useRef, type JSX } from 'react';
import type { TrafficEvent } from '../../../../../shared/api.js';
import { NoteInput } from '../../../components/NoteInput.js';
import { CopyMenu } from './CopyMenu.js';
import { CompareButton, MarkButtons, MoreMenu, ResendButtons } from './DetailActionButtons.js';
import { useCollapsed } from './use-collapsed.js';
import { useDetailActions } from './use-detail-actions.js';

/**
 * The verbs of the selected exchange: Resend, Edit & resend, Compare, Copy as, Pin and a note, on one line; when the
 * detail is too narrow for them all, Compare, Pin and Note go into a "More" menu.
 */
export function DetailActions({ event, proxyName }: { event: TrafficEvent; proxyName: string }): JSX.Element {
  const actions = useDetailActions(event, proxyName);
  const { marks, error } = actions;
  const bar = useRef<HTMLDivElement>(null);
  const collapsed = useCollapsed(bar);
  return (
    <>
      <div
        className={collapsed ? 'detail-actions collapsed' : 'detail-actions'}
        role="toolbar"
        aria-label="Exchange actions"
        ref={bar}
      >
        <ResendButtons actions={actions} />
        {!collapsed && <CompareButton actions={actions} />}
        <CopyMenu event={event} target={actions.copyTarget} />
        {!collapsed && <MarkButtons marks={marks} />}
        {collapsed && <MoreMenu actions={actions} />}
        {marks.noting && (
          <NoteInput
            label="Note"
            placeholder="a short note (Enter saves)"
            value={marks.note}
            onChange={marks.setNote}
            onSave={() => void marks.saveNote()}
            onCancel={marks.cancelNote}
            onBlur={() => void marks.saveNote()}
          />
        )}
      </div>
      {error && (
        <p className="error small detail-actions-error" role="alert">
          {error}
        </p>
      )}
    </>
  );
}
