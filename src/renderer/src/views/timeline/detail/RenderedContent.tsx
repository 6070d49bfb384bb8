import { useState, type JSX } from 'react';
import type { TrafficEvent } from '../../../../../shared/api.js';

/** text shown at first (and added per "Show more"): a 5 MB text block laid out whole takes seconds */
export const TEXT_SHOWN = 100_000;
/** structured content rows shown at first (and added per "Show more") */
export const ROWS_SHOWN = 200;

type Block = {
  type?: string;
  text?: string;
  data?: string;
  mimeType?: string;
  uri?: string;
  name?: string;
  title?: string;
  resource?: { uri?: string; text?: string; blob?: string; mimeType?: string };
};

/** The result as a client would show it: text, images and audio as such, resource links, structured content as a table. */
export function RenderedContent({ event }: { event: TrafficEvent }): JSX.Element {
  const response = event.response as
    | {
        result?: { content?: Block[]; structuredContent?: unknown; isError?: boolean };
        error?: { code: number; message: string };
      }
    | undefined;
  if (!response) return <p className="muted small">Waiting for the answer…</p>;
  if (response.error) {
    return (
      <div className="rendered is-error" role="note">
        <strong>JSON-RPC error {response.error.code}</strong>
        <p>{response.error.message}</p>
      </div>
    );
  }
  // the timeline keeps a large answer's result as a marker: it has content, just not here yet
  if (event.truncated?.response !== undefined)
    return <p className="muted small">This answer is truncated on the timeline: Load full body (above) shows it.</p>;
  const result = response.result ?? {};
  const content = Array.isArray(result.content) ? result.content : undefined;
  if (!content && result.structuredContent === undefined)
    return <p className="muted small">This answer has no content blocks (see Response).</p>;
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
  );
}

function ContentBlock({ block }: { block: Block }): JSX.Element {
  switch (block.type) {
    case 'text':
      return <TextBlock text={block.text ?? ''} />;
    case 'image':
      return (
        <img
          src={`data:${block.mimeType ?? 'image/png'};base64,${block.data ?? ''}`}
          alt={`image (${block.mimeType ?? 'unknown type'})`}
          className="image-block"
        />
      );
    case 'audio':
      return (
        <audio
          controls
          src={`data:${block.mimeType ?? 'audio/wav'};base64,${block.data ?? ''}`}
          aria-label={`audio (${block.mimeType ?? 'unknown type'})`}
        />
      );
    case 'resource_link':
      return (
        <p>
          resource link <code>{block.uri}</code>
          {block.name ? ` — ${block.title ?? block.name}` : ''}
          {block.mimeType ? <span className="muted"> ({block.mimeType})</span> : null}
        </p>
      );
    case 'resource':
      return (
        <div>
          <p>
            embedded resource <code>{block.resource?.uri}</code>
            {block.resource?.mimeType ? <span className="muted"> ({block.resource.mimeType})</span> : null}
          </p>
          {block.resource?.text !== undefined ? (
            <TextBlock text={block.resource.text} />
          ) : (
            <p className="muted small">
              binary ({(block.resource?.blob ?? '').length.toLocaleString('en')} base64 characters)
            </p>
          )}
        </div>
      );
    default:
      return <TextBlock text={JSON.stringify(block, null, 2)} />;
  }
}

/** A text as the client would show it: the first TEXT_SHOWN characters, then more on demand (its size said). */
function TextBlock({ text }: { text: string }): JSX.Element {
  const [shown, setShown] = useState(TEXT_SHOWN);
  const cut = text.length > shown;
  return (
    <>
      <pre className="text-block">{cut ? text.slice(0, shown) : text}</pre>
      {cut && (
        <p className="muted small" role="note">
          Showing the first {shown.toLocaleString('en')} of {text.length.toLocaleString('en')} characters (the Response
          tab has all of it).{' '}
          <button type="button" className="small" onClick={() => setShown(shown * 4)}>
            Show more
          </button>
        </p>
      )}
    </>
  );
}

/** a cell's text, cut at 300 characters (the Response tab has all of it) */
const cell = (v: unknown): string => {
  const text = v !== null && typeof v === 'object' ? JSON.stringify(v) : String(v);
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
};

/** structuredContent: an object as key/value rows; an array of objects (or an object holding one) as a table. */
function StructuredTable({ value }: { value: unknown }): JSX.Element {
  const [shown, setShown] = useState(ROWS_SHOWN);
  const rows = Array.isArray(value)
    ? value
    : Object.values(value as Record<string, unknown>).find(
        (v) => Array.isArray(v) && v.every((r) => r && typeof r === 'object'),
      );
  if (Array.isArray(rows) && rows.length > 0 && rows.every((r) => r && typeof r === 'object' && !Array.isArray(r))) {
    const columns = [...new Set(rows.slice(0, 200).flatMap((r) => Object.keys(r as object)))];
    return (
      <>
        <table className="grid structured" aria-label="Structured content">
          <thead>
            <tr>
              {columns.map((c) => (
                <th key={c}>{c}</th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.slice(0, shown).map((r, i) => (
              <tr key={i}>
                {columns.map((c) => (
                  <td key={c}>{cell((r as Record<string, unknown>)[c])}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
        {rows.length > shown && (
          <p className="muted small" role="note">
            Showing {shown.toLocaleString('en')} of {rows.length.toLocaleString('en')} rows.{' '}
            <button type="button" className="small" onClick={() => setShown(shown * 5)}>
              Show more
            </button>
          </p>
        )}
      </>
    );
  }
  const entries = Object.entries(value as Record<string, unknown>);
  return (
    <>
      <table className="grid structured" aria-label="Structured content">
        <tbody>
          {entries.slice(0, shown).map(([k, v]) => (
            <tr key={k}>
              <th scope="row">{k}</th>
              <td>{cell(v)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {entries.length > shown && (
        <p className="muted small" role="note">
          Showing {shown.toLocaleString('en')} of {entries.length.toLocaleString('en')} fields.{' '}
          <button type="button" className="small" onClick={() => setShown(shown * 5)}>
            Show more
          </button>
        </p>
      )}
    </>
  );
}
