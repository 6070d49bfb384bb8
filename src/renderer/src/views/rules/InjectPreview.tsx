import { useEffect, useMemo, useRef, useState, type JSX } from 'react';
import type { TrafficEvent } from '../../../../shared/api.js';
import { previewInject } from '../../stores/rules.js';
import { useTraffic } from '../../stores/traffic.js';
import './rules.css';

const DEBOUNCE_MS = 200;
const CHOICES = 20;

export interface RecordedCall {
  /** the exchange's timeline number */
  seq: number;
  label: string;
  result: Record<string, unknown>;
  args?: Record<string, unknown>;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The tool's recorded calls on this proxy that got a result, newest first. */
export function recordedCalls(exchanges: TrafficEvent[], proxyId: string, tool: string): RecordedCall[] {
  const out: RecordedCall[] = [];
  for (let i = exchanges.length - 1; i >= 0 && out.length < CHOICES; i--) {
    const e = exchanges[i];
    if (
      e.proxyId !== proxyId ||
      e.method !== 'tools/call' ||
      e.tool !== tool ||
      !e.response ||
      !('result' in e.response)
    )
      continue;
    // only results the upstream (or cassette) gave: previewing over a rule's own answer would stack two rules
    if (e.behavior === 'override' || e.behavior === 'inject') continue;
    const args = isObject(e.request.params?.arguments) ? e.request.params.arguments : undefined;
    const time = new Date(e.startedAt).toLocaleTimeString();
    out.push({
      seq: e.seq,
      label: `#${e.seq} at ${time} ${args ? JSON.stringify(args) : ''}`.slice(0, 120),
      result: e.response.result,
      args,
    });
  }
  return out;
}

/** Recorded calls of a tool (from the traffic store), kept stable while the traffic grows elsewhere. */
export function useRecordedCalls(proxyId: string, tool: string): RecordedCall[] {
  const exchanges = useTraffic((s) => s.exchanges);
  return useMemo(() => recordedCalls(exchanges, proxyId, tool), [exchanges, proxyId, tool]);
}

/** The inject template rendered by the engine (rules.preview) against a real recorded result, on every edit. */
export function InjectPreview({
  proxyId,
  tool,
  template,
}: {
  proxyId: string;
  tool: string;
  template: string;
}): JSX.Element {
  const calls = useRecordedCalls(proxyId, tool);
  const [picked, setPicked] = useState<number>();
  const call = calls.find((c) => c.seq === picked) ?? calls[0];
  const [rendered, setRendered] = useState<{ text?: string; error?: string }>({});
  /** the first rendering is asked at once; edits after it are debounced */
  const asked = useRef(false);

  useEffect(() => {
    if (!call) return;
    let live = true;
    const timer = setTimeout(
      () => {
        previewInject({ template, result: call.result, ...(call.args ? { args: call.args } : {}) })
          .then((answer) => live && setRendered({ text: answer.text }))
          .catch((error: Error) => live && setRendered({ error: error.message }));
      },
      asked.current ? DEBOUNCE_MS : 0,
    );
    asked.current = true;
    return () => {
      live = false;
      clearTimeout(timer);
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps -- the seq names the call; new traffic must not re-render it
  }, [template, call?.seq]);

  return (
    <section className="inject-preview" aria-label="Inject preview">
      <h3 className="small muted">Live preview</h3>
      {!call ? (
        <p className="muted small" data-testid="inject-preview-empty">
          no recorded result yet — call the tool once
        </p>
      ) : (
        <>
          <label className="field">
            Against the recorded call
            <select value={call.seq} onChange={(e) => setPicked(Number(e.target.value))}>
              {calls.map((c) => (
                <option key={c.seq} value={c.seq}>
                  {c.label}
                </option>
              ))}
            </select>
          </label>
          {rendered.error ? (
            <p className="field-error">{rendered.error}</p>
          ) : (
            <pre data-testid="inject-preview">{rendered.text ?? '…'}</pre>
          )}
        </>
      )}
    </section>
  );
}
