import { useLayoutEffect, useRef, useState, type JSX, type RefObject } from 'react';
import type { TrafficEvent } from '../../../../../shared/api.js';
import { curlScript, jsonRpcMessage, responseJson, sdkSnippet, type CopyTarget } from '../../../models/copy-as.js';
import { useProxies } from '../../../stores/proxies.js';
import { flushTraffic } from '../../../stores/traffic.js';
import { annotate, sendExchange, useVerbs } from '../../../stores/verbs.js';
import { useTimelineUi } from '../../../stores/timeline-ui.js';
import { useSendTarget } from './SendTarget.js';
import { copyText } from '../../../components/clipboard.js';
import { MenuButton } from '../../../components/Menu.js';
import { NoteInput } from '../../../components/NoteInput.js';

/** Requests the verbs apply to: every client request but the handshake. */
export const canResend = (e: TrafficEvent): boolean =>
  e.method !== 'initialize' && !e.method.startsWith('notifications/');

/** "Copy as": curl (a script with a session of its own), JSON-RPC, a TypeScript SDK snippet; the response as JSON. */
function CopyMenu({ event, target }: { event: TrafficEvent; target?: CopyTarget }): JSX.Element {
  const [status, setStatus] = useState<string>();
  const request = { method: event.method, params: event.request.params };
  const item = (
    close: () => void,
    label: string,
    hint: string,
    text: (() => string) | undefined,
    what: string,
  ): JSX.Element => (
    <button
      type="button"
      role="menuitem"
      disabled={!text}
      title={hint}
      onClick={() => {
        if (text) copyText(text(), setStatus, `copied ${what}`);
        close();
      }}
    >
      <span>{label}</span>
      <span className="muted small">{hint}</span>
    </button>
  );
  return (
    <div className="copy-menu">
      <MenuButton label="Copy as ▾" menuLabel="Copy as">
        {(close) => (
          <>
            {item(
              close,
              'curl',
              target
                ? 'a sh script: opens a session of its own on the proxy, sends, prints the answer'
                : 'no running proxy to send it to',
              target && (() => curlScript(request, target)),
              'curl',
            )}
            {item(
              close,
              'JSON-RPC message',
              'the request, with a fresh id',
              () => jsonRpcMessage(request),
              'the JSON-RPC message',
            )}
            {item(
              close,
              'TypeScript (SDK)',
              target ? 'client.callTool(…) with the official SDK' : 'no running proxy to send it to',
              target && (() => sdkSnippet(request, target)),
              'the TypeScript snippet',
            )}
            {item(
              close,
              'Response as JSON',
              event.response ? 'the answer the client got' : 'no answer yet',
              event.response && (() => responseJson(event.response)),
              'the response',
            )}
          </>
        )}
      </MenuButton>
      {status && (
        <span className="muted small" aria-live="polite">
          {status}
        </span>
      )}
    </div>
  );
}

/** the width a one-line flex row's items take, gaps and padding included (an open menu, positioned, takes none) */
function contentWidth(el: HTMLElement): number {
  const style = getComputedStyle(el);
  const items = [...el.children] as HTMLElement[];
  const gaps = (parseFloat(style.columnGap) || 0) * Math.max(0, items.length - 1);
  const padding = parseFloat(style.paddingLeft) + parseFloat(style.paddingRight);
  return items.reduce((n, item) => n + item.offsetWidth, 0) + gaps + padding;
}

/**
 * Whether a one-line toolbar is too narrow for all its items: measured with them all, it stays
 * collapsed until it is as wide again.
 */
function useCollapsed(bar: RefObject<HTMLElement | null>): boolean {
  const [collapsed, setCollapsed] = useState(false);
  const state = useRef({ collapsed: false, needed: 0 });
  const check = (): void => {
    const el = bar.current;
    if (!el) return;
    if (!state.current.collapsed) {
      state.current.needed = contentWidth(el);
      if (state.current.needed > el.clientWidth + 1) setCollapsed((state.current.collapsed = true));
    } else if (el.clientWidth >= state.current.needed) setCollapsed((state.current.collapsed = false));
  };
  useLayoutEffect(check); // its items changed (a pin, a note)
  useLayoutEffect(() => {
    const el = bar.current;
    if (!el) return;
    const observer = new ResizeObserver(check);
    observer.observe(el);
    return () => observer.disconnect();
    // eslint-disable-next-line react-hooks/exhaustive-deps -- check reads only refs
  }, [bar]);
  return collapsed;
}

/**
 * The verbs of the selected exchange: Resend, Edit & resend, Compare, Copy as, Pin and a note, on one line; when the
 * detail is too narrow for them all, Compare, Pin and Note go into a "More" menu.
 */
export function DetailActions({ event, proxyName }: { event: TrafficEvent; proxyName: string }): JSX.Element {
  const { select, setDetailTab, setPicking, picking } = useTimelineUi();
  const mark = useVerbs((s) => s.marks[event.seq]);
  const target = useSendTarget(event);
  const targetUrl = useProxies((s) => s.proxies.find((p) => p.id === target.proxyId)?.url);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const [noting, setNoting] = useState(false);
  const [note, setNote] = useState(mark?.note ?? '');
  const resendable = canResend(event) && !('pausedId' in event && event.pausedId);
  const bar = useRef<HTMLDivElement>(null);
  const collapsed = useCollapsed(bar);

  async function resend(): Promise<void> {
    setBusy(true);
    setError(undefined);
    try {
      const sent = await sendExchange({
        proxyId: target.proxyId,
        method: event.method,
        params: event.request.params,
        kind: 'resend',
        from: event.seq,
      });
      if (sent.seq !== undefined) {
        flushTraffic();
        select(sent.seq, true);
        setDetailTab('diff'); // the new exchange beside its original
      }
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  }

  async function saveNote(): Promise<void> {
    setNoting(false);
    if ((mark?.note ?? '') !== note.trim())
      await annotate(event.seq, { note: note.trim() }).catch((e: Error) => setError(e.message));
  }

  const copyTarget: CopyTarget | undefined = targetUrl
    ? {
        url: targetUrl,
        protocolVersion: event.protocolVersion,
        title: `${event.method}${event.tool ? ` ${event.tool}` : ''} through proxy ${proxyName}`,
        // the client sent its own token (the event keeps only its scheme): the script asks for one, never holds it
        ...(event.authorization ? { headers: { Authorization: `${event.authorization} $MCP_TOKEN` } } : {}),
      }
    : undefined;
  const through = target.running.find((p) => p.id === target.proxyId)?.name;
  const compareOn = (): void => (picking ? setPicking(false) : (setDetailTab('diff'), setPicking(true)));
  const togglePin = (): void =>
    void annotate(event.seq, { pinned: !mark?.pinned }).catch((e: Error) => setError(e.message));
  const startNote = (): void => (setNote(mark?.note ?? ''), setNoting(true));
  const pinLabel = mark?.pinned ? '★ Pinned' : '☆ Pin';
  const noteLabel = mark?.note ? `Note: ${mark.note.length > 24 ? `${mark.note.slice(0, 23)}…` : mark.note}` : 'Note…';
  return (
    <>
      <div
        className={collapsed ? 'detail-actions collapsed' : 'detail-actions'}
        role="toolbar"
        aria-label="Exchange actions"
        ref={bar}
      >
        <button
          type="button"
          className="small"
          disabled={!resendable || busy || !target.proxyId}
          onClick={() => void resend()}
          title={
            resendable
              ? `Send the same request again through ${through ?? 'a proxy'}, on the app's own session`
              : 'not a request that can be sent again'
          }
        >
          {busy ? 'Sending…' : '↻ Resend'}
        </button>
        <button
          type="button"
          className="small"
          disabled={!resendable || !target.proxyId}
          onClick={() => setDetailTab('edit')}
        >
          ✎ Edit &amp; resend
        </button>
        {!collapsed && (
          <button
            type="button"
            className={picking ? 'small toggle on' : 'small'}
            onClick={compareOn}
            title="Compare with another exchange: click it in the table"
          >
            ⇄ Compare…
          </button>
        )}
        <CopyMenu event={event} target={copyTarget} />
        {!collapsed && (
          <button
            type="button"
            className={mark?.pinned ? 'small toggle on' : 'small'}
            aria-pressed={mark?.pinned ?? false}
            onClick={togglePin}
            title="Pinned exchanges survive Clear and restarts"
          >
            {pinLabel}
          </button>
        )}
        {!collapsed && !noting && (
          <button
            type="button"
            className="small"
            onClick={startNote}
            title={mark?.note ?? 'Add a short note (kept with the exchange)'}
          >
            {noteLabel}
          </button>
        )}
        {collapsed && (
          <MenuButton label="More ▾" menuLabel="More actions" title="Compare, pin, note">
            {(close) => (
              <>
                <button type="button" role="menuitem" onClick={() => (close(), compareOn())}>
                  ⇄ Compare…
                </button>
                <button
                  type="button"
                  role="menuitemcheckbox"
                  aria-checked={mark?.pinned ?? false}
                  onClick={() => (close(), togglePin())}
                >
                  {pinLabel}
                </button>
                <button type="button" role="menuitem" onClick={() => (close(), startNote())}>
                  {noteLabel}
                </button>
              </>
            )}
          </MenuButton>
        )}
        {noting && (
          <NoteInput
            label="Note"
            placeholder="a short note (Enter saves)"
            value={note}
            onChange={setNote}
            onSave={() => void saveNote()}
            onCancel={() => (setNote(mark?.note ?? ''), setNoting(false))}
            onBlur={() => void saveNote()}
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
