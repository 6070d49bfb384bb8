import { useMemo, useState, type JSX } from 'react';
import type { TrafficEvent } from '../../../../../shared/api.js';
import { useToolSchema } from '../../../hooks/tool-schema.js';
import { promptForm } from '../../../models/schema-form.js';
import { useTraffic } from '../../../stores/traffic.js';
import { useTimelineUi } from '../../../stores/timeline-ui.js';
import { answerLine, RequestEditor, type Sent } from './RequestEditor.js';
import { AppSessionPanel } from './AppSessionPanel.js';
import { SendTarget, useSendTarget } from './SendTarget.js';

type PromptArgs = Array<{ name: string; required?: boolean; description?: string }>;

/** The prompt's arguments, from the newest prompts/list of the exchange's proxy in the timeline. */
function usePromptArguments(event: TrafficEvent): PromptArgs | undefined {
  const name = event.method === 'prompts/get' ? String(event.request.params?.name ?? '') : undefined;
  const prompt = useTraffic((s) => {
    if (!name) return undefined;
    for (let i = s.exchanges.length - 1; i >= 0; i--) {
      const e = s.exchanges[i];
      if (e.method !== 'prompts/list' || e.proxyId !== event.proxyId || !e.response || !('result' in e.response))
        continue;
      const found = (e.response.result.prompts as Array<{ name: string; arguments?: PromptArgs }> | undefined)?.find(
        (p) => p.name === name,
      );
      if (found) return found;
    }
    return undefined;
  });
  return prompt ? (prompt.arguments ?? NO_ARGUMENTS) : undefined;
}
const NO_ARGUMENTS: PromptArgs = [];

/** Edit & resend: the request in a form made from the tool's input schema (or raw JSON), sent through a proxy. */
export function EditResend({ event }: { event: TrafficEvent }): JSX.Element {
  const target = useSendTarget(event);
  const tool = event.method === 'tools/call' ? String(event.request.params?.name ?? '') : undefined;
  // the tool's inputSchema: the timeline's tools/list (of the exchange's proxy, else the target's), else the target's
  const schema = useToolSchema(tool, [event.proxyId, target.proxyId], target.proxyId);
  const promptArgs = usePromptArguments(event);
  const form = useMemo(() => (promptArgs ? promptForm(promptArgs) : undefined), [promptArgs]);
  const select = useTimelineUi((s) => s.select);
  const [sent, setSent] = useState<Sent>();
  const { _meta, ...params } = event.request.params ?? {};
  // the original's _meta, editable; its progress token is the client's own (a resend gets a fresh one)
  const { progressToken: _token, ...meta } = (_meta ?? {}) as Record<string, unknown>;
  return (
    <div className="edit-resend">
      <SendTarget target={target} />
      {target.proxyId && <AppSessionPanel proxyId={target.proxyId} />}
      {target.proxyId ? (
        <RequestEditor
          key={`${event.seq} ${target.proxyId}`}
          proxyId={target.proxyId}
          method={event.method}
          params={params}
          schema={schema}
          form={form}
          kind="edit"
          from={event.seq}
          sendLabel="Send edited request"
          label={`Arguments of ${event.tool ?? event.method}`}
          onSent={setSent}
          meta={meta}
        />
      ) : null}
      {event.method === 'tools/call' && !schema && (
        <p className="muted small">
          The tool&apos;s input schema is not known here (no tools/list of this proxy in the timeline): the form is raw
          JSON.
        </p>
      )}
      {sent && (
        <p className="re-sent small" role="status">
          Sent{sent.seq !== undefined ? ` as #${sent.seq}` : ''}: {answerLine(sent.response)}{' '}
          {sent.seq !== undefined && (
            <button type="button" className="link" onClick={() => select(sent.seq, true)}>
              Open #{sent.seq}
            </button>
          )}
        </p>
      )}
    </div>
  );
}
