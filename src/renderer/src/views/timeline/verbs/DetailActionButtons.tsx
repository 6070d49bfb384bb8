import type { JSX } from 'react';
import { MenuButton } from '../../../components/Menu.js';
import type { DetailActionsState, MarkVerbs } from './use-detail-actions.js';

/** ↻ Resend and ✎ Edit & resend */
export function ResendButtons({ actions }: { actions: DetailActionsState }): JSX.Element {
  const { resendable, busy, target, through } = actions;
  return (
    <>
      <button
        type="button"
        className="small"
        disabled={!resendable || busy || !target.proxyId}
        onClick={() => void actions.resend()}
        title={
          resendable
            ? `Send the same request again through ${through ?? 'a proxy'}, on the app's own session`
            : 'not a request that can be sent again'
        }
      >
        {busy ? 'Sending…' : '↻ Resend'}
      </button>
      <button type="button" className="small" disabled={!resendable || !target.proxyId} onClick={actions.edit}>
        ✎ Edit &amp; resend
      </button>
    </>
  );
}

export function CompareButton({ actions }: { actions: DetailActionsState }): JSX.Element {
  return (
    <button
      type="button"
      className={actions.picking ? 'small toggle on' : 'small'}
      onClick={actions.compareOn}
      title="Compare with another exchange: click it in the table"
    >
      ⇄ Compare…
    </button>
  );
}

/** Pin, and the note's button while it is not being edited */
export function MarkButtons({ marks }: { marks: MarkVerbs }): JSX.Element {
  const { mark } = marks;
  return (
    <>
      <button
        type="button"
        className={mark?.pinned ? 'small toggle on' : 'small'}
        aria-pressed={mark?.pinned ?? false}
        onClick={marks.togglePin}
        title="Pinned exchanges survive Clear and restarts"
      >
        {marks.pinLabel}
      </button>
      {!marks.noting && (
        <button
          type="button"
          className="small"
          onClick={marks.startNote}
          title={mark?.note ?? 'Add a short note (kept with the exchange)'}
        >
          {marks.noteLabel}
        </button>
      )}
    </>
  );
}

/** Compare, Pin and Note in a menu, when the toolbar is too narrow for them */
export function MoreMenu({ actions }: { actions: DetailActionsState }): JSX.Element {
  const { marks } = actions;
  return (
    <MenuButton label="More ▾" menuLabel="More actions" title="Compare, pin, note">
      {(close) => (
        <>
          <button type="button" role="menuitem" onClick={() => (close(), actions.compareOn())}>
            ⇄ Compare…
          </button>
          <button
            type="button"
            role="menuitemcheckbox"
            aria-checked={marks.mark?.pinned ?? false}
            onClick={() => (close(), marks.togglePin())}
          >
            {marks.pinLabel}
          </button>
          <button type="button" role="menuitem" onClick={() => (close(), marks.startNote())}>
            {marks.noteLabel}
          </button>
        </>
      )}
    </MenuButton>
  );
}
