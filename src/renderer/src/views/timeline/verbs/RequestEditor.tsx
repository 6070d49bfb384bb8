import { Name } from '../../../components/Name.js';
import { useMemo, useState, type JSX } from 'react';
import type { JsonRpcResponse } from '../../../../../shared/jsonrpc.js';
import { JsonEditor } from '../../../components/JsonEditor.js';
import { formOf, fromJsonText, problemsByPath, toJsonText, type Field } from '../../../models/schema-form.js';
import { useSchemaProblems } from '../../../hooks/tool-schema.js';
import { headerLines, parseHeaderLines, parseMeta } from '../../../models/request-options.js';
import { sendExchange } from '../../../stores/verbs.js';
import { SchemaForm } from './SchemaForm.js';
import { EditorActions } from './EditorActions.js';

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

/**
 * A request to send through a proxy, edited as a form generated from its schema (the arguments of a tools/call or a
 * prompts/get) or as raw JSON (every param). The arguments are checked against the schema by the engine (ajv) as you
 * type; a request that breaks it can still be sent on purpose ("Send anyway": the server is the judge).
 */
export function RequestEditor({
  proxyId,
  method,
  params,
  schema,
  form: givenForm,
  kind,
  from,
  sendLabel,
  onSent,
  label,
  meta,
}: Props): JSX.Element {
  const form = useMemo(() => givenForm ?? (schema ? formOf(schema) : undefined), [givenForm, schema]);
  const hasArguments = form !== undefined && (method === 'tools/call' || method === 'prompts/get');
  const [mode, setMode] = useState<'form' | 'json'>(hasArguments ? 'form' : 'json');
  const [current, setCurrent] = useState<Record<string, unknown>>(params);
  const [text, setText] = useState(() => toJsonText(params));
  const [textError, setTextError] = useState<string>();
  const [anyway, setAnyway] = useState(false);
  /** problems show once the user edited the form or tried to send (not on a form just opened) */
  const [touched, setTouched] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const [headersText, setHeadersText] = useState('');
  const [metaText, setMetaText] = useState(() => (meta && Object.keys(meta).length ? toJsonText(meta) : ''));

  const args = current.arguments;
  const checkedSchema = givenForm ? undefined : schema;
  const problems = useSchemaProblems(checkedSchema, args, hasArguments);
  // a prompt's required arguments, checked here (they are all strings)
  const missing =
    givenForm && hasArguments
      ? (givenForm.fields ?? [])
          .filter((f) => f.required && !((args as Record<string, unknown> | undefined)?.[f.name] ?? ''))
          .map((f) => ({ path: f.name, message: 'required' }))
      : [];
  const allProblems = [...(checkedSchema && hasArguments ? problems : []), ...missing];
  const byPath = problemsByPath(touched ? allProblems : []);

  function switchTo(next: 'form' | 'json'): void {
    if (next === 'json') setText(toJsonText(current));
    else {
      const parsed = fromJsonText(text);
      if (!parsed.ok || typeof parsed.value !== 'object' || parsed.value === null || Array.isArray(parsed.value))
        return setTextError(parsed.ok ? 'params must be a JSON object' : parsed.message);
      setCurrent(parsed.value as Record<string, unknown>);
    }
    setTextError(undefined);
    setMode(next);
  }

  async function send(): Promise<void> {
    setTouched(true);
    if (mode === 'form' && allProblems.length > 0 && !anyway) return;
    let toSend = current;
    if (mode === 'json') {
      const parsed = fromJsonText(text);
      if (!parsed.ok) return setTextError(parsed.message);
      if (typeof parsed.value !== 'object' || parsed.value === null || Array.isArray(parsed.value))
        return setTextError('params must be a JSON object');
      toSend = parsed.value as Record<string, unknown>;
    }
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

  return (
    <div className="request-editor">
      <div className="re-head">
        <code>
          <Name value={method} />
        </code>
        {hasArguments && (
          <div className="segmented" role="radiogroup" aria-label="Edit as">
            <label>
              <input type="radio" name={`mode-${label}`} checked={mode === 'form'} onChange={() => switchTo('form')} />{' '}
              Form
            </label>
            <label>
              <input type="radio" name={`mode-${label}`} checked={mode === 'json'} onChange={() => switchTo('json')} />{' '}
              Raw JSON
            </label>
          </div>
        )}
      </div>
      {mode === 'form' && form ? (
        <SchemaForm
          form={form}
          value={args ?? {}}
          onChange={(v) => {
            setTouched(true);
            setCurrent({ ...current, arguments: v ?? {} });
          }}
          problems={byPath}
          label={label}
        />
      ) : (
        <div className="re-json">
          <JsonEditor value={text} onChange={setText} label={`params of ${method}`} maxHeight="320px" />
        </div>
      )}
      {textError && (
        <p className="field-error" role="alert">
          {textError}
        </p>
      )}
      {mode === 'form' && touched && allProblems.length > 0 && (
        <p className="re-problems small" role="status">
          {allProblems.length} problem{allProblems.length === 1 ? '' : 's'} with the input schema ·{' '}
          <label className="inline">
            <input type="checkbox" checked={anyway} onChange={(e) => setAnyway(e.target.checked)} /> send anyway
          </label>
        </p>
      )}
      <RequestOptions headers={headersText} onHeaders={setHeadersText} meta={metaText} onMeta={setMetaText} />
      <EditorActions error={error}>
        <button type="button" className="primary" disabled={busy} onClick={() => void send()}>
          {busy ? 'Sending…' : sendLabel}
        </button>
      </EditorActions>
    </div>
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
