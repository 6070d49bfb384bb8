import { useEffect, useMemo, useState, type JSX } from 'react'
import type { TrafficEvent } from '../../../../../shared/api.js'
import { api } from '../../../api/current.js'
import { toolInputSchema } from '../../../models/input-schema.js'
import { promptForm } from '../../../models/schema-form.js'
import { useTraffic } from '../../../stores/traffic.js'
import { useTimelineUi } from '../state.js'
import { answerLine, RequestEditor, type Sent } from './RequestEditor.js'
import { SendTarget, useSendTarget } from './SendTarget.js'

/** The schema of a call's arguments: the tool's inputSchema (the timeline's tools/list, else the proxy's merged list). */
function useToolSchema(event: TrafficEvent, proxyId: string): Record<string, unknown> | undefined {
  const tool = event.method === 'tools/call' ? String(event.request.params?.name ?? '') : undefined
  const seen = useTraffic((s) => (tool ? (toolInputSchema(s.exchanges, event.proxyId, tool) ?? toolInputSchema(s.exchanges, proxyId, tool)) : undefined)) as
    Record<string, unknown> | undefined
  const [listed, setListed] = useState<Record<string, unknown>>()
  useEffect(() => {
    if (seen || !tool || !proxyId) return
    let live = true
    api()
      .call('rules.get', { id: proxyId })
      .then((answer) => live && setListed(answer.tools.find((t) => t.name === tool)?.inputSchema))
      .catch(() => {})
    return () => {
      live = false
    }
  }, [seen, tool, proxyId])
  return seen ?? listed
}

type PromptArgs = Array<{ name: string; required?: boolean; description?: string }>

/** The prompt's arguments, from the newest prompts/list of the exchange's proxy in the timeline. */
function usePromptArguments(event: TrafficEvent): PromptArgs | undefined {
  const name = event.method === 'prompts/get' ? String(event.request.params?.name ?? '') : undefined
  const prompt = useTraffic((s) => {
    if (!name) return undefined
    for (let i = s.exchanges.length - 1; i >= 0; i--) {
      const e = s.exchanges[i]
      if (e.method !== 'prompts/list' || e.proxyId !== event.proxyId || !e.response || !('result' in e.response)) continue
      const found = (e.response.result.prompts as Array<{ name: string; arguments?: PromptArgs }> | undefined)?.find((p) => p.name === name)
      if (found) return found
    }
    return undefined
  })
  return prompt ? (prompt.arguments ?? NO_ARGUMENTS) : undefined
}
const NO_ARGUMENTS: PromptArgs = []

/** Edit & resend: the request in a form made from the tool's input schema (or raw JSON), sent through a proxy. */
export function EditResend({ event }: { event: TrafficEvent }): JSX.Element {
  const target = useSendTarget(event)
  const schema = useToolSchema(event, target.proxyId)
  const promptArgs = usePromptArguments(event)
  const form = useMemo(() => (promptArgs ? promptForm(promptArgs) : undefined), [promptArgs])
  const select = useTimelineUi((s) => s.select)
  const [sent, setSent] = useState<Sent>()
  const { _meta, ...params } = event.request.params ?? {}
  return (
    <div className="edit-resend">
      <SendTarget target={target} />
      {target.proxyId ? (
        <RequestEditor
          key={`${event.proxyId}:${event.seq}:${target.proxyId}:${schema || form ? 'form' : 'raw'}`}
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
        />
      ) : null}
      {event.method === 'tools/call' && !schema && (
        <p className="muted small">The tool&apos;s input schema is not known here (no tools/list of this proxy in the timeline): the form is raw JSON.</p>
      )}
      {sent && (
        <p className="re-sent small" role="status">
          Sent{sent.seq !== undefined ? ` as #${sent.seq}` : ''}: {answerLine(sent.response)}{' '}
          {sent.seq !== undefined && (
            <button type="button" className="link" onClick={() => select(`${target.proxyId}:${sent.seq}`, true)}>
              Open #{sent.seq}
            </button>
          )}
        </p>
      )}
    </div>
  )
}
