import { Name } from '../../../components/Name.js';
import { useMemo, useState, type JSX } from 'react';
import type { JsonRpcResponse } from '../../../../../shared/jsonrpc.js';
import { JsonEditor } from '../../../components/JsonEditor.js';
import { formOf, problemsByPath, toJsonText, type Field } from '../../../models/schema-form.js';
import { headerLines, parseHeaderLines, parseMeta } from '../../../models/request-options.js';
import { sendExchange } from '../../../stores/verbs.js';
import { SchemaForm } from './SchemaForm.js';
import { EditorActions } from './EditorActions.js';
import { useArgumentProblems, useParamsDraft, type EditMode, type ParamsDraft } from './use-request-draft.js';
import type { SchemaProblems } from '../../../hooks/tool-schema.js';

export interface Sent {
  seq?: number;
  response: JsonRpcResponse;
}

interface Props {
  proxyId: string;
  method: string;
  /** the request's params as they start (the original's, for Edit & resend) */
  params: Record<string, unknown>;
  /** the JSON Schema of `params.arguments` (a tool's inputSchema, a prompt's arguments as a schema), if known */
  schema?: Record<string, unknown>;
  /** a ready form for the arguments (prompts); else one is made from `schema` */
  form?: Field;
  kind: 'edit' | 'compose';
  from?: number;
  /** what the send button says */
  sendLabel: string;
  onSent(sent: Sent): void;
  /** for the form's accessible name ("Arguments of echo") */
  label: string;
  /** the request's `_meta` as it starts (the original's, for Edit & resend) */
  meta?: Record<string, unknown>;
}

/** One line about an answer: ok, a tool error, or a JSON-RPC error with its message. */
export function answerLine(response: JsonRpcResponse): string {
  if ('error' in response) return `error ${response.error.code}: ${response.error.message}`;
  const result = response.result as { isError?: boolean; content?: Array<{ type: string; text?: string }> };
  const text = result.content?.find((c) => c.type === 'text')?.text;
  return `${result.isError ? 'tool error' : 'ok'}${text ? `: ${text.length > 160 ? `${text.slice(0, 159)}…` : text}` : ''}`;
}

/** Sends the request (params, the headers and `_meta` typed beside them) through the proxy; busy and error meanwhile. */
function useSendRequest(
  { proxyId, method, kind, from, onSent }: Props,
  headersText: string,
  metaText: string,
): { busy: boolean; error?: string; send(params: Record<string, unknown>): Promise<void> } {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  async function send(params: Record<string, unknown>): Promise<void> {
    let toSend = params;
    const headers = parseHeaderLines(headersText);
    const metaValue = parseMeta(metaText);
    if (!headers.ok || !metaValue.ok)
      return setError(!headers.ok ? headers.message : (metaValue as { message: string }).message);
    if (metaValue.value) toSend = { ...toSend, _meta: metaValue.value };
    setBusy(true);
    setError(undefined);
    try {
      onSent(
        await sendExchange({
          proxyId,
          method,
          params: toSend,
          kind,
          ...(from !== undefined ? { from } : {}),
          ...(Object.keys(headers.value).length ? { headers: headers.value } : {}),
        }),
      );
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  }
  return { busy, error, send };
}

/**
 * A request to send through a proxy, edited as a form generated from its schema (the arguments of a tools/call or a
 * prompts/get) or as raw JSON (every param). The arguments are checked against the schema by the engine (ajv) as you
 * type; a request that breaks it can still be sent on purpose ("Send anyway": the server is the judge).
 */
export function RequestEditor(props: Props): JSX.Element {
  const { method, params, schema, form: givenForm, sendLabel, label, meta } = props;
  const form = useMemo(() => givenForm ?? (schema ? formOf(schema) : undefined), [givenForm, schema]);
  const hasArguments = form !== undefined && (method === 'tools/call' || method === 'prompts/get');
  const draft = useParamsDraft(params, hasArguments);
  const [anyway, setAnyway] = useState(false);
  /** problems show once the user edited the form or tried to send (not on a form just opened) */
  const [touched, setTouched] = useState(false);
  const [headersText, setHeadersText] = useState('');
  const [metaText, setMetaText] = useState(() => (meta && Object.keys(meta).length ? toJsonText(meta) : ''));
  const allProblems = useArgumentProblems(givenForm, schema, draft.current.arguments, hasArguments);
  const sending = useSendRequest(props, headersText, metaText);

  async function send(): Promise<void> {
    setTouched(true);
    if (draft.mode === 'form' && allProblems.length > 0 && !anyway) return;
    const toSend = draft.read();
    if (toSend) await sending.send(toSend);
  }

  return (
    <div className="request-editor">
      <div className="re-head">
        <code>
          <Name value={method} />
        </code>
        {hasArguments && <ModeSwitch mode={draft.mode} onSwitch={draft.switchTo} label={label} />}
      </div>
      <ParamsEditor
        draft={draft}
        form={form}
        method={method}
        label={label}
        problems={touched ? allProblems : []}
        onEdit={() => setTouched(true)}
      />
      {draft.mode === 'form' && touched && allProblems.length > 0 && (
        <ProblemsLine count={allProblems.length} anyway={anyway} onAnyway={setAnyway} />
      )}
      <RequestOptions headers={headersText} onHeaders={setHeadersText} meta={metaText} onMeta={setMetaText} />
      <EditorActions error={sending.error}>
        <button type="button" className="primary" disabled={sending.busy} onClick={() => void send()}>
          {sending.busy ? 'Sending…' : sendLabel}
        </button>
      </EditorActions>
    </div>
  );
}

/** The params as a form of the arguments (with their problems), else as raw JSON; and why the JSON is not read. */
function ParamsEditor(props: {
  draft: ParamsDraft;
  form?: Field;
  method: string;
  label: string;
  problems: SchemaProblems;
  onEdit(): void;
}): JSX.Element {
  const { draft, form } = props;
  return (
    <>
      {draft.mode === 'form' && form ? (
        <SchemaForm
          form={form}
          value={draft.current.arguments ?? {}}
          onChange={(v) => {
            props.onEdit();
            draft.setArguments(v);
          }}
          problems={problemsByPath(props.problems)}
          label={props.label}
        />
      ) : (
        <div className="re-json">
          <JsonEditor
            value={draft.text}
            onChange={draft.setText}
            label={`params of ${props.method}`}
            maxHeight="320px"
          />
        </div>
      )}
      {draft.textError && (
        <p className="field-error" role="alert">
          {draft.textError}
        </p>
      )}
    </>
  );
}

function ModeSwitch(props: { mode: EditMode; onSwitch(next: EditMode): void; label: string }): JSX.Element {
  return (
    <div className="segmented" role="radiogroup" aria-label="Edit as">
      <label>
        <input
          type="radio"
          name={`mode-${props.label}`}
          checked={props.mode === 'form'}
          onChange={() => props.onSwitch('form')}
        />{' '}
        Form
      </label>
      <label>
        <input
          type="radio"
          name={`mode-${props.label}`}
          checked={props.mode === 'json'}
          onChange={() => props.onSwitch('json')}
        />{' '}
        Raw JSON
      </label>
    </div>
  );
}

function ProblemsLine(props: { count: number; anyway: boolean; onAnyway(anyway: boolean): void }): JSX.Element {
  return (
    <p className="re-problems small" role="status">
      {props.count} problem{props.count === 1 ? '' : 's'} with the input schema ·{' '}
      <label className="inline">
        <input type="checkbox" checked={props.anyway} onChange={(e) => props.onAnyway(e.target.checked)} /> send anyway
      </label>
    </p>
  );
}

/** Headers (one `Name: value` a line) and `_meta` (JSON) of the request: folded until opened, says what it holds. */
function RequestOptions(props: {
  headers: string;
  onHeaders(text: string): void;
  meta: string;
  onMeta(text: string): void;
}): JSX.Element {
  const headerCount = props.headers.split('\n').filter((l) => l.trim()).length;
  const summary = [
    headerCount ? `${headerCount} header${headerCount === 1 ? '' : 's'}` : '',
    props.meta.trim() ? '_meta' : '',
  ]
    .filter(Boolean)
    .join(', ');
  return (
    <details className="re-options" open={headerCount > 0 || props.meta.trim() !== '' ? true : undefined}>
      <summary>Headers and _meta{summary ? ` (${summary})` : ''}</summary>
      <label>
        <span>
          HTTP headers of this request (one <code>Name: value</code> a line)
        </span>
        <textarea
          rows={2}
          value={props.headers}
          onChange={(e) => props.onHeaders(e.target.value)}
          placeholder={headerLines({ Authorization: 'Bearer …' })}
          spellCheck={false}
        />
      </label>
      <label>
        <span>_meta (a JSON object)</span>
        <textarea
          rows={2}
          value={props.meta}
          onChange={(e) => props.onMeta(e.target.value)}
          placeholder='{ "example.com/trace": "abc" }'
          spellCheck={false}
        />
      </label>
    </details>
  );
}
