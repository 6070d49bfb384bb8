import { useId, useRef, type JSX } from 'react';
import { FieldErrors, TextField } from './fields.js';
import { issuesAt, type Issue, type ToolForm } from '../../models/rules-form.js';
import { InjectPreview, useRecordedCalls } from './InjectPreview.js';
import './rules.css';

interface Props {
  proxyId: string;
  form: ToolForm;
  issues: Issue[];
  onChange: (patch: Partial<ToolForm>) => void;
}

const R = 'behavior.response';

/** override: a fixed response without contacting the upstream. */
export function OverrideFields({ form, issues, onChange }: Omit<Props, 'proxyId'>): JSX.Element {
  return (
    <fieldset>
      <legend>Response (override)</legend>
      <FieldErrors issues={issuesAt(issues, R).concat(issuesAt(issues, 'behavior'))} />
      <TextField
        label="Text"
        value={form.text}
        onChange={(text) => onChange({ text })}
        issues={issuesAt(issues, `${R}.text`)}
        rows={2}
        hint="one text block; leave empty to give content blocks instead"
      />
      <TextField
        label="Content blocks (JSON)"
        value={form.contentJson}
        onChange={(contentJson) => onChange({ contentJson })}
        issues={issuesAt(issues, `${R}.content`, true)}
        rows={4}
        placeholder='[{ "type": "text", "text": "…" }]'
      />
      <TextField
        label="Structured content (JSON)"
        value={form.structuredJson}
        onChange={(structuredJson) => onChange({ structuredJson })}
        issues={issuesAt(issues, `${R}.structured_content`, true)}
        rows={3}
        placeholder='{ "sum": 42 }'
      />
      <label className="field inline">
        <input type="checkbox" checked={form.isError} onChange={(e) => onChange({ isError: e.target.checked })} />
        is_error (a tool error result)
      </label>
      <TextField
        label="Delay (s)"
        multiline={false}
        value={form.delay}
        onChange={(delay) => onChange({ delay })}
        issues={issuesAt(issues, `${R}.delay_s`)}
        placeholder="0.5"
        hint="simulated latency, 0–600 s"
      />
    </fieldset>
  );
}

function argNames(form: ToolForm, recorded: Array<{ args?: Record<string, unknown> }>): string[] {
  const names = new Set<string>();
  for (const call of recorded) for (const name of Object.keys(call.args ?? {})) names.add(name);
  try {
    const schema = form.inputSchemaJson
      ? (JSON.parse(form.inputSchemaJson) as { properties?: Record<string, unknown> })
      : undefined;
    for (const name of Object.keys(schema?.properties ?? {})) names.add(name);
  } catch {
    /* shown as an input_schema error */
  }
  return [...names];
}

/** inject: the upstream's result with its content replaced by the rendered template; placeholders are chips. */
export function InjectFields({ proxyId, form, issues, onChange }: Props): JSX.Element {
  const area = useRef<HTMLTextAreaElement>(null);
  const id = useId();
  const recorded = useRecordedCalls(proxyId, form.name);
  const chips = ['{original_text}', '{original_payload}', ...argNames(form, recorded).map((n) => `{args.${n}}`)];

  function insert(chip: string): void {
    const el = area.current;
    const at = el ? el.selectionStart : form.template.length;
    const end = el ? el.selectionEnd : at;
    onChange({ template: form.template.slice(0, at) + chip + form.template.slice(end) });
    requestAnimationFrame(() => {
      el?.focus();
      el?.setSelectionRange(at + chip.length, at + chip.length);
    });
  }

  const templateIssues = issuesAt(issues, 'behavior.template').concat(issuesAt(issues, 'behavior'));
  return (
    <fieldset>
      <legend>Template (inject)</legend>
      <div className="field">
        <label htmlFor={id}>Template</label>
        <textarea
          id={id}
          ref={area}
          rows={3}
          spellCheck={false}
          value={form.template}
          aria-invalid={templateIssues.length ? true : undefined}
          onChange={(e) => onChange({ template: e.target.value })}
        />
      </div>
      <div className="chips" aria-label="Placeholders">
        {chips.map((chip) => (
          <button key={chip} type="button" title="insert at the cursor" onClick={() => insert(chip)}>
            {chip}
          </button>
        ))}
      </div>
      <p className="hint">Unknown placeholders stay literal; a non-string argument is inserted as JSON.</p>
      <FieldErrors issues={templateIssues} />
      <InjectPreview proxyId={proxyId} tool={form.name} template={form.template} />
    </fieldset>
  );
}
