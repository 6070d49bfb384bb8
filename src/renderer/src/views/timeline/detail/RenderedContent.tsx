import type { JSX } from 'react'
import type { TrafficEvent } from '../../../../../shared/api.js'

type Block = {
  type?: string
  text?: string
  data?: string
  mimeType?: string
  uri?: string
  name?: string
  title?: string
  resource?: { uri?: string; text?: string; blob?: string; mimeType?: string }
}

/** The result as a client would show it: text, images and audio as such, resource links, structured content as a table. */
export function RenderedContent({ event }: { event: TrafficEvent }): JSX.Element {
  const response = event.response as
    { result?: { content?: Block[]; structuredContent?: unknown; isError?: boolean }; error?: { code: number; message: string } } | undefined
  if (!response) return <p className="muted small">Waiting for the answer…</p>
  if (response.error) {
    return (
      <div className="rendered is-error" role="note">
        <strong>JSON-RPC error {response.error.code}</strong>
        <p>{response.error.message}</p>
      </div>
    )
  }
  const result = response.result ?? {}
  const content = Array.isArray(result.content) ? result.content : undefined
  if (!content && result.structuredContent === undefined) return <p className="muted small">This answer has no content blocks (see Response).</p>
  return (
    <div className={result.isError ? 'rendered is-error' : 'rendered'}>
      {result.isError && <p className="error-banner">isError: the tool reports a failure</p>}
      {content?.map((block, i) => (
        <div key={i} className="block" data-block={block.type}>
          <ContentBlock block={block} />
        </div>
      ))}
      {result.structuredContent !== undefined && <StructuredTable value={result.structuredContent} />}
    </div>
  )
}

function ContentBlock({ block }: { block: Block }): JSX.Element {
  switch (block.type) {
    case 'text':
      return <pre className="text-block">{block.text}</pre>
    case 'image':
      return (
        <img
          src={`data:${block.mimeType ?? 'image/png'};base64,${block.data ?? ''}`}
          alt={`image (${block.mimeType ?? 'unknown type'})`}
          className="image-block"
        />
      )
    case 'audio':
      return (
        <audio controls src={`data:${block.mimeType ?? 'audio/wav'};base64,${block.data ?? ''}`} aria-label={`audio (${block.mimeType ?? 'unknown type'})`} />
      )
    case 'resource_link':
      return (
        <p>
          resource link <code>{block.uri}</code>
          {block.name ? ` — ${block.title ?? block.name}` : ''}
          {block.mimeType ? <span className="muted"> ({block.mimeType})</span> : null}
        </p>
      )
    case 'resource':
      return (
        <div>
          <p>
            embedded resource <code>{block.resource?.uri}</code>
            {block.resource?.mimeType ? <span className="muted"> ({block.resource.mimeType})</span> : null}
          </p>
          {block.resource?.text !== undefined ? (
            <pre className="text-block">{block.resource.text}</pre>
          ) : (
            <p className="muted small">binary ({(block.resource?.blob ?? '').length.toLocaleString('en')} base64 characters)</p>
          )}
        </div>
      )
    default:
      return <pre className="text-block">{JSON.stringify(block, null, 2)}</pre>
  }
}

const cell = (v: unknown): string => (v !== null && typeof v === 'object' ? JSON.stringify(v) : String(v))

/** structuredContent: an object as key/value rows; an array of objects (or an object holding one) as a table. */
function StructuredTable({ value }: { value: unknown }): JSX.Element {
  const rows = Array.isArray(value)
    ? value
    : Object.values(value as Record<string, unknown>).find((v) => Array.isArray(v) && v.every((r) => r && typeof r === 'object'))
  if (Array.isArray(rows) && rows.length > 0 && rows.every((r) => r && typeof r === 'object' && !Array.isArray(r))) {
    const columns = [...new Set(rows.slice(0, 200).flatMap((r) => Object.keys(r as object)))]
    return (
      <table className="grid structured" aria-label="Structured content">
        <thead>
          <tr>
            {columns.map((c) => (
              <th key={c}>{c}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.slice(0, 500).map((r, i) => (
            <tr key={i}>
              {columns.map((c) => (
                <td key={c}>{cell((r as Record<string, unknown>)[c])}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    )
  }
  return (
    <table className="grid structured" aria-label="Structured content">
      <tbody>
        {Object.entries(value as Record<string, unknown>).map(([k, v]) => (
          <tr key={k}>
            <th scope="row">{k}</th>
            <td>{cell(v)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  )
}
