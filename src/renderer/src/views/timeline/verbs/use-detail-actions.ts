import { useState } from 'react';
import type { Annotation, TrafficEvent } from '../../../../../shared/api.js';
import type { CopyTarget } from '../../../models/copy-as.js';
import { useProxies } from '../../../stores/proxies.js';
import { flushTraffic } from '../../../stores/traffic.js';
import { annotate, sendExchange, useVerbs } from '../../../stores/verbs.js';
import { useTimelineUi, type TimelineUiState } from '../../../stores/timeline-ui.js';
import { useSendTarget, type Target } from './SendTarget.js';

/** Requests the verbs apply to: every client request but the handshake. */
export const canResend = (e: TrafficEvent): boolean =>
  e.method !== 'initialize' && !e.method.startsWith('notifications/');

type SetError = (message: string | undefined) => void;

/** The pin and the note of an exchange, the note edited in place. */
export interface MarkVerbs {
  mark: Annotation | undefined;
  pinLabel: string;
  noteLabel: string;
  togglePin(): void;
  /** the note is being edited */
  noting: boolean;
  note: string;
  setNote(note: string): void;
  startNote(): void;
  saveNote(): Promise<void>;
  cancelNote(): void;
}

function useMarkVerbs(seq: number, setError: SetError): MarkVerbs {
  const mark = useVerbs((s) => s.marks[seq]);
  const [noting, setNoting] = useState(false);
  const [note, setNote] = useState(mark?.note ?? '');

  async function saveNote(): Promise<void> {
    setNoting(false);
    if ((mark?.note ?? '') !== note.trim())
      await annotate(seq, { note: note.trim() }).catch((e: Error) => setError(e.message));
  }

  return {
    mark,
    pinLabel: mark?.pinned ? '★ Pinned' : '☆ Pin',
    noteLabel: mark?.note ? `Note: ${mark.note.length > 24 ? `${mark.note.slice(0, 23)}…` : mark.note}` : 'Note…',
    togglePin: () => void annotate(seq, { pinned: !mark?.pinned }).catch((e: Error) => setError(e.message)),
    noting,
    note,
    setNote,
    startNote: () => (setNote(mark?.note ?? ''), setNoting(true)),
    saveNote,
    cancelNote: () => (setNote(mark?.note ?? ''), setNoting(false)),
  };
}

/** Resend: the same request through the target proxy; the new exchange opens beside its original. */
function useResend(
  event: TrafficEvent,
  proxyId: string,
  ui: Pick<TimelineUiState, 'select' | 'setDetailTab'>,
  setError: SetError,
): { busy: boolean; resend(): Promise<void> } {
  const [busy, setBusy] = useState(false);

  async function resend(): Promise<void> {
    setBusy(true);
    setError(undefined);
    try {
      const sent = await sendExchange({
        proxyId,
        method: event.method,
        params: event.request.params,
        kind: 'resend',
        from: event.seq,
      });
      if (sent.seq !== undefined) {
        flushTraffic();
        ui.select(sent.seq, true);
        ui.setDetailTab('diff'); // the new exchange beside its original
      }
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  }

  return { busy, resend };
}

/** Where "Copy as" sends to: the target proxy's URL, or none when no proxy runs. */
function copyTargetOf(event: TrafficEvent, proxyName: string, url: string | undefined): CopyTarget | undefined {
  return url
    ? {
        url,
        protocolVersion: event.protocolVersion,
        title: `${event.method}${event.tool ? ` ${event.tool}` : ''} through proxy ${proxyName}`,
        // the client sent its own token (the event keeps only its scheme): the script asks for one, never holds it
        ...(event.authorization ? { headers: { Authorization: `${event.authorization} $MCP_TOKEN` } } : {}),
      }
    : undefined;
}

export interface DetailActionsState {
  target: Target;
  /** the name of the proxy a Resend goes through */
  through: string | undefined;
  resendable: boolean;
  busy: boolean;
  resend(): Promise<void>;
  edit(): void;
  picking: boolean;
  compareOn(): void;
  copyTarget: CopyTarget | undefined;
  marks: MarkVerbs;
  error: string | undefined;
}

/** The verbs of the selected exchange: Resend, Edit & resend, Compare, the Copy as target, Pin and a note. */
export function useDetailActions(event: TrafficEvent, proxyName: string): DetailActionsState {
  const ui = useTimelineUi();
  const target = useSendTarget(event);
  const targetUrl = useProxies((s) => s.proxies.find((p) => p.id === target.proxyId)?.url);
  const [error, setError] = useState<string>();
  const { busy, resend } = useResend(event, target.proxyId, ui, setError);
  const marks = useMarkVerbs(event.seq, setError);
  const { picking, setPicking, setDetailTab } = ui;
  return {
    target,
    through: target.running.find((p) => p.id === target.proxyId)?.name,
    resendable: canResend(event) && !('pausedId' in event && event.pausedId),
    busy,
    resend,
    edit: () => setDetailTab('edit'),
    picking,
    compareOn: () => (picking ? setPicking(false) : (setDetailTab('diff'), setPicking(true))),
    copyTarget: copyTargetOf(event, proxyName, targetUrl),
    marks,
    error,
  };
}
