import { useEffect, useMemo, useRef, useState, type JSX } from 'react';
import type { AppServerRequest } from '../../../../../shared/api.js';
import { formOf, initialValue, problemsByPath } from '../../../models/schema-form.js';
import { useProxies } from '../../../stores/proxies.js';
import { answerQuestion, checkSchema, useVerbs } from '../../../stores/verbs.js';
import { timeLeft, useNow } from '../../breakpoints/BreakpointBanner.js';
import { SchemaForm } from './SchemaForm.js';

/** The text of a sampling request's messages, one line each ("user: …"). */
function messagesOf(params: Record<string, unknown>): string[] {
  const messages = (params.messages as Array<{ role?: string; content?: unknown }> | undefined) ?? [];
  return messages.map((m) => {
    const blocks = Array.isArray(m.content) ? m.content : [m.content];
    const text = blocks
      .map((b) =>
        (b as { type?: string; text?: string })?.type === 'text'
          ? (b as { text: string }).text
          : `[${(b as { type?: string })?.type ?? '?'}]`,
      )
      .join(' ');
    return `${m.role ?? '?'}: ${text}`;
  });
}

/** one kind of question's form: what was asked, and how to answer (a result) or refuse (an error) */
interface QuestionProps {
  question: AppServerRequest;
  busy: boolean;
  answer(a: { result?: Record<string, unknown>; error?: string }): void;
}

function Sampling({ question, busy, answer }: QuestionProps): JSX.Element {
  const [text, setText] = useState('');
  return (
    <>
      <p className="small">
        The server asks the client (the app) to sample a model. Answer as the model would, or refuse:
      </p>
      <ul className="question-messages">
        {messagesOf(question.params).map((line, i) => (
          <li key={i}>{line}</li>
        ))}
      </ul>
      {typeof question.params.systemPrompt === 'string' && (
        <p className="muted small">System prompt: {question.params.systemPrompt}</p>
      )}
      <label className="compose-pick">
        Answer
        <textarea aria-label="Sampling answer" rows={4} value={text} onChange={(e) => setText(e.target.value)} />
      </label>
      <div className="dialog-actions">
        <button type="button" disabled={busy} onClick={() => answer({ error: 'declined' })}>
          Refuse
        </button>
        <button
          type="button"
          className="primary"
          disabled={busy}
          onClick={() =>
            answer({
              result: {
                role: 'assistant',
                content: { type: 'text', text },
                model: 'mcp-rewind (answered by hand)',
                stopReason: 'endTurn',
              },
            })
          }
        >
          Send answer
        </button>
      </div>
    </>
  );
}

function Elicitation({ question, busy, answer }: QuestionProps): JSX.Element {
  const schema = question.params.requestedSchema as Record<string, unknown> | undefined;
  const form = useMemo(() => formOf(schema), [schema]);
  const [value, setValue] = useState<unknown>(() => initialValue(form) ?? {});
  const [problems, setProblems] = useState<Array<{ path: string; message: string }>>([]);
  useEffect(() => {
    if (!schema) return;
    let live = true;
    void checkSchema(schema, value).then(
      (p) => live && setProblems(p),
      () => {},
    );
    return () => {
      live = false;
    };
  }, [schema, value]);
  return (
    <>
      <p className="small">
        {typeof question.params.message === 'string'
          ? question.params.message
          : 'The server asks the client (the app) for input.'}
      </p>
      <SchemaForm
        form={form}
        value={value}
        onChange={setValue}
        problems={problemsByPath(problems)}
        label="Requested input"
      />
      <div className="dialog-actions">
        <button type="button" disabled={busy} onClick={() => answer({ result: { action: 'cancel' } })}>
          Cancel
        </button>
        <button type="button" disabled={busy} onClick={() => answer({ result: { action: 'decline' } })}>
          Decline
        </button>
        <button
          type="button"
          className="primary"
          disabled={busy || problems.length > 0}
          onClick={() => answer({ result: { action: 'accept', content: value as Record<string, unknown> } })}
        >
          Accept
        </button>
      </div>
    </>
  );
}

/**
 * A server→client request made to the app's own session (during a Resend or a Compose call): sampling or elicitation,
 * answered here by the user or refused (the server gets an error saying so). Shown over any view.
 */
export function QuestionDialog(): JSX.Element {
  const questions = useVerbs((s) => s.questions);
  const proxies = useProxies((s) => s.proxies);
  const question = questions[0];
  const dialog = useRef<HTMLDialogElement>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const now = useNow(question !== undefined);
  useEffect(() => {
    const el = dialog.current;
    if (!el) return;
    if (question && !el.open) el.showModal();
    if (!question && el.open) el.close();
  }, [question]);
  const answer = (a: { result?: Record<string, unknown>; error?: string }): void => {
    if (!question) return;
    setBusy(true);
    setError(undefined);
    answerQuestion(question.id, a)
      .catch((e: Error) => setError(e.message))
      .finally(() => setBusy(false));
  };
  const proxy = question && (proxies.find((p) => p.id === question.proxyId)?.name ?? question.proxyId);
  return (
    <dialog
      ref={dialog}
      className="modal"
      aria-label="The server asks"
      onCancel={(e) => (e.preventDefault(), answer({ error: 'dismissed' }))}
    >
      {question && (
        <div className="dialog-body">
          <h2>
            {question.method === 'sampling/createMessage'
              ? 'Sampling request'
              : question.method === 'elicitation/create'
                ? 'Elicitation request'
                : question.method}{' '}
            from {proxy}
          </h2>
          <p className="muted small">
            On the app&apos;s own session · refused by itself in {timeLeft(question, Math.max(now, question.since))}
            {questions.length > 1 ? ` · ${questions.length - 1} more waiting` : ''}
          </p>
          {question.method === 'sampling/createMessage' ? (
            <Sampling key={question.id} question={question} busy={busy} answer={answer} />
          ) : (
            <Elicitation key={question.id} question={question} busy={busy} answer={answer} />
          )}
          {error && (
            <p className="error small" role="alert">
              {error}
            </p>
          )}
        </div>
      )}
    </dialog>
  );
}
