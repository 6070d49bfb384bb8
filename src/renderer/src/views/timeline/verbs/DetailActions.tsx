import { useState, type JSX } from 'react';
import type { TrafficEvent } from '../../../../../shared/api.js';
import { curlScript, jsonRpcMessage, responseJson, sdkSnippet, type CopyTarget } from '../../../models/copy-as.js';
import { useProxies } from '../../../stores/proxies.js';
import { flushTraffic } from '../../../stores/traffic.js';
import { annotate, sendExchange, useVerbs } from '../../../stores/verbs.js';
import { useTimelineUi } from '../state.js';
import { useSendTarget } from './SendTarget.js';
import { copyText } from '../../../components/clipboard.js';
import { MenuButton } from '../../../components/Menu.js';

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

/** The verbs of the selected exchange: Resend, Edit & resend, Compare, Copy as, Pin and a note. */
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
      }
    : undefined;
  const through = target.running.find((p) => p.id === target.proxyId)?.name;
  return (
    <div className="detail-actions" role="toolbar" aria-label="Exchange actions">
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
      <button
        type="button"
        className={picking ? 'small toggle on' : 'small'}
        onClick={() => (picking ? setPicking(false) : (setDetailTab('diff'), setPicking(true)))}
        title="Compare with another exchange: click it in the table"
      >
        ⇄ Compare…
      </button>
      <CopyMenu event={event} target={copyTarget} />
      <button
        type="button"
        className={mark?.pinned ? 'small toggle on' : 'small'}
        aria-pressed={mark?.pinned ?? false}
        onClick={() => void annotate(event.seq, { pinned: !mark?.pinned }).catch((e: Error) => setError(e.message))}
        title="Pinned exchanges survive Clear and restarts"
      >
        {mark?.pinned ? '★ Pinned' : '☆ Pin'}
      </button>
      {noting ? (
        <input
          className="note-input"
          aria-label="Note"
          autoFocus
          maxLength={500}
          value={note}
          placeholder="a short note (Enter saves)"
          onChange={(e) => setNote(e.target.value)}
          onBlur={() => void saveNote()}
          onKeyDown={(e) => {
            if (e.key === 'Enter') void saveNote();
            if (e.key === 'Escape') {
              setNote(mark?.note ?? '');
              setNoting(false);
              e.stopPropagation();
            }
          }}
        />
      ) : (
        <button
          type="button"
          className="small"
          onClick={() => (setNote(mark?.note ?? ''), setNoting(true))}
          title={mark?.note ?? 'Add a short note (kept with the exchange)'}
        >
          {mark?.note ? `Note: ${mark.note.length > 24 ? `${mark.note.slice(0, 23)}…` : mark.note}` : 'Note…'}
        </button>
      )}
      {error && (
        <span className="error small" role="alert">
          {error}
        </span>
      )}
    </div>
  );
}
