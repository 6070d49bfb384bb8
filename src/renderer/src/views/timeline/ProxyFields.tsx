import type { InputHTMLAttributes, JSX, ReactNode } from 'react';
import { MODES, type Mode } from '../../../../shared/modes.js';
import { PROXY_FIELD_LABELS, type ProxyField } from '../../../../shared/proxy-config.js';
import {
  DEFAULT_UPSTREAM_MAX_TIME_S,
  DEFAULT_UPSTREAM_TIMEOUT_S,
  UPSTREAM_MAX_TIME_HINT,
  UPSTREAM_TIMEOUT_HINT,
} from '../../../../shared/upstream-limits.js';
import { draftParts, type ProxyDraft } from '../../models/proxy-draft.js';

/** The New proxy form as its fields see it: the draft, and what to say beside each field now. */
export interface ProxyForm {
  draft: ProxyDraft;
  set(patch: Partial<ProxyDraft>): void;
  /** the problem shown beside a field now (once it was left, or on Create), or the engine's refusal naming it */
  problem(field: ProxyField): string | undefined;
  /** the user left the field: its problem shows from now on */
  leave(field: ProxyField): void;
}

const MODE_HINTS: Record<Mode, string> = {
  record: 'forward to the upstream, store every answer in the cassette',
  replay: 'answer from the cassette only; no upstream',
  hybrid: 'cassette first, else the upstream (and store the answer)',
  'proxy-only': 'forward only; no cassette',
};
const REPLAY_TIMINGS = ['none', 'recorded', 'x2', 'x0.5', 'x10'];

/** What ties a control to its label, to its problem or hint, and to the form's "left this field". */
function controlProps(
  form: ProxyForm,
  id: ProxyField,
): Pick<InputHTMLAttributes<HTMLElement>, 'id' | 'aria-invalid' | 'aria-describedby' | 'onBlur'> {
  const problem = form.problem(id);
  return {
    id: `np-${id}`,
    'aria-invalid': problem ? true : undefined,
    'aria-describedby': problem ? `np-${id}-error` : `np-${id}-hint`,
    onBlur: () => form.leave(id),
  };
}

/** A labelled control, with its problem (or else its hint) below it. */
function Field({
  form,
  id,
  hint,
  children,
}: {
  form: ProxyForm;
  id: ProxyField;
  hint?: string;
  children: ReactNode;
}): JSX.Element {
  const problem = form.problem(id);
  return (
    <>
      <label htmlFor={`np-${id}`}>{PROXY_FIELD_LABELS[id]}</label>
      <div className="control">
        {children}
        {problem ? (
          <p className="field-error" id={`np-${id}-error`} role="alert">
            {problem}
          </p>
        ) : hint ? (
          <p className="field-hint" id={`np-${id}-hint`}>
            {hint}
          </p>
        ) : null}
      </div>
    </>
  );
}

type TextKey = Exclude<keyof ProxyDraft, 'mode' | 'source' | 'strict' | 'oauthClientId'>;
type TextFieldProps = { form: ProxyForm; id: TextKey; hint?: string; after?: ReactNode } & Omit<
  InputHTMLAttributes<HTMLInputElement>,
  'id' | 'value' | 'onChange' | 'form'
>;

/** A field of one text input bound to the draft. */
function TextField({ form, id, hint, after, ...input }: TextFieldProps): JSX.Element {
  return (
    <Field form={form} id={id} hint={hint}>
      <input
        {...controlProps(form, id)}
        {...input}
        value={form.draft[id]}
        onChange={(e) => form.set({ [id]: e.target.value })}
      />
      {after}
    </Field>
  );
}

function ModeField({ form }: { form: ProxyForm }): JSX.Element {
  return (
    <Field form={form} id="mode" hint={MODE_HINTS[form.draft.mode]}>
      <select
        {...controlProps(form, 'mode')}
        value={form.draft.mode}
        onChange={(e) => form.set({ mode: e.target.value as Mode })}
      >
        {MODES.map((m) => (
          <option key={m} value={m}>
            {m}
          </option>
        ))}
      </select>
    </Field>
  );
}

/** The upstream: a URL or a stdio command, one at a time, and the limits of a call to it. */
function UpstreamFields({ form }: { form: ProxyForm }): JSX.Element {
  const { source } = form.draft;
  return (
    <>
      <span className="label" id="np-source-label">
        Upstream
      </span>
      <div className="control">
        <div className="segmented" role="radiogroup" aria-labelledby="np-source-label">
          <label>
            <input
              type="radio"
              name="np-source"
              checked={source === 'url'}
              onChange={() => form.set({ source: 'url' })}
            />
            URL (HTTP)
          </label>
          <label>
            <input
              type="radio"
              name="np-source"
              checked={source === 'command'}
              onChange={() => form.set({ source: 'command' })}
            />
            stdio command
          </label>
        </div>
      </div>
      {source === 'url' ? (
        <TextField
          form={form}
          id="upstreamUrl"
          type="url"
          placeholder="http://127.0.0.1:3000/mcp"
          spellCheck={false}
          hint="Streamable HTTP or legacy HTTP+SSE (detected); checked with an MCP initialize before the proxy runs"
        />
      ) : (
        <TextField
          form={form}
          id="upstreamCommand"
          placeholder="npx -y @modelcontextprotocol/server-everything"
          spellCheck={false}
          hint="started per client session; words split as in sh, no shell"
        />
      )}
      <TextField
        form={form}
        id="upstreamTimeoutS"
        inputMode="decimal"
        placeholder={String(DEFAULT_UPSTREAM_TIMEOUT_S)}
        hint={UPSTREAM_TIMEOUT_HINT}
      />
      <TextField
        form={form}
        id="upstreamMaxTimeS"
        inputMode="decimal"
        placeholder={String(DEFAULT_UPSTREAM_MAX_TIME_S)}
        hint={UPSTREAM_MAX_TIME_HINT}
      />
    </>
  );
}

function StrictField({ form }: { form: ProxyForm }): JSX.Element {
  return (
    <Field
      form={form}
      id="strict"
      hint="a miss is an error naming the closest recorded key and what differs (for tests in CI)"
    >
      <input
        {...controlProps(form, 'strict')}
        type="checkbox"
        checked={form.draft.strict}
        onChange={(e) => form.set({ strict: e.target.checked })}
      />
    </Field>
  );
}

function ReplayTimingField({ form }: { form: ProxyForm }): JSX.Element {
  const timings = (
    <datalist id="np-replay-timings">
      {REPLAY_TIMINGS.map((t) => (
        <option key={t} value={t} />
      ))}
    </datalist>
  );
  return (
    <TextField
      form={form}
      id="replayTiming"
      list="np-replay-timings"
      placeholder="none"
      spellCheck={false}
      after={timings}
      hint="none: at once; recorded: the recorded latency and spacing of streamed messages; x2 / x0.5: twice / half as fast"
    />
  );
}

/** The OAuth client id of a URL upstream (the draft's oauthClientId, the configuration's `oauth.clientId`). */
function OAuthClientField({ form }: { form: ProxyForm }): JSX.Element {
  return (
    <Field
      form={form}
      id="oauth"
      hint="for an upstream that asks for an OAuth sign-in: the proxy signs in as this client (else it registers itself); the agent needs no sign-in"
    >
      <input
        {...controlProps(form, 'oauth')}
        placeholder="optional: registered automatically"
        spellCheck={false}
        value={form.draft.oauthClientId}
        onChange={(e) => form.set({ oauthClientId: e.target.value })}
      />
    </Field>
  );
}

/** The New proxy form's fields: those the chosen mode has (an upstream, a cassette folder, a replay timing), then the rest. */
export function ProxyFields({ form, defaultDir }: { form: ProxyForm; defaultDir?: string }): JSX.Element {
  const parts = draftParts(form.draft.mode);
  return (
    <div className="form-grid">
      <ModeField form={form} />
      {parts.upstream && <UpstreamFields form={form} />}
      {parts.cassette && (
        <TextField
          form={form}
          id="cacheDir"
          placeholder={defaultDir ?? './cache'}
          spellCheck={false}
          hint={
            parts.existingCassette
              ? 'must exist: replay never creates a cassette'
              : `empty: ${defaultDir ?? 'the default folder (Settings)'}`
          }
        />
      )}
      {parts.replayTiming && <ReplayTimingField form={form} />}
      {parts.strict && <StrictField form={form} />}
      <TextField form={form} id="name" placeholder="optional: made from the mode and upstream" />
      <TextField
        form={form}
        id="allowedOrigins"
        placeholder="none: only agents and SDK clients (no Origin)"
        spellCheck={false}
        hint="browser pages that may call this proxy, e.g. http://localhost:6274 (separate several with spaces); any other page is refused"
      />
      {parts.upstream && form.draft.source === 'url' && <OAuthClientField form={form} />}
      <TextField form={form} id="port" inputMode="numeric" placeholder="any free port" />
    </div>
  );
}
