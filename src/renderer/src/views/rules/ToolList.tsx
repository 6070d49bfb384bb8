import { Name } from '../../components/Name.js';
import { visibleName } from '../../models/visible-text.js';
import { useState, type FormEvent, type JSX } from 'react';
import { useRules, type MergedToolView } from '../../stores/rules.js';
import { syntheticForm, type Issue } from '../../models/rules-form.js';
import './rules.css';

interface Row {
  name: string;
  origin: string;
  behavior: string;
  /** has a rule in the draft */
  listed: boolean;
  /** hidden: its own rule hides it, or passthrough:false (an upstream tool without a rule) */
  hidden: boolean;
}

/** The merged list (as applied), plus what the draft adds: new rules, and tools it hides. */
function rows(
  tools: MergedToolView[],
  seen: Record<string, MergedToolView>,
  listed: Set<string>,
  passthrough: boolean,
  behaviors: Map<string, string>,
  hiddenByRule: Set<string>,
): Row[] {
  const out = new Map<string, Row>();
  const row = (tool: MergedToolView): Row => ({
    name: tool.name,
    origin: tool.origin,
    behavior: behaviors.get(tool.name) ?? tool.behavior,
    listed: listed.has(tool.name),
    hidden: hiddenByRule.has(tool.name) || (!passthrough && !listed.has(tool.name)),
  });
  for (const tool of tools) out.set(tool.name, row(tool));
  for (const tool of Object.values(seen))
    if (!out.has(tool.name) && tool.origin !== 'synthetic') out.set(tool.name, row(tool));
  for (const name of listed)
    if (!out.has(name))
      out.set(name, {
        name,
        origin: 'new',
        behavior: behaviors.get(name) ?? 'relay',
        listed: true,
        hidden: hiddenByRule.has(name),
      });
  return [...out.values()];
}

function AddTool(): JSX.Element {
  const addRule = useRules((s) => s.addRule);
  const forms = useRules((s) => s.forms);
  const tools = useRules((s) => s.tools);
  const [name, setName] = useState('');
  const [error, setError] = useState<string>();
  function submit(event: FormEvent): void {
    event.preventDefault();
    const trimmed = name.trim();
    if (!trimmed) return setError('give the tool a name');
    if (forms.some((f) => f.name === trimmed) || tools.some((t) => t.name === trimmed))
      return setError(`"${trimmed}" exists already: select it instead`);
    addRule(syntheticForm(trimmed));
    setName('');
    setError(undefined);
  }
  return (
    <form aria-label="Add a synthetic tool" onSubmit={submit}>
      <div className="rules-add">
        <input
          aria-label="New tool name"
          placeholder="new tool name"
          value={name}
          onChange={(e) => setName(e.target.value)}
        />
        <button type="submit">Add tool</button>
      </div>
      {error && <p className="field-error">{error}</p>}
    </form>
  );
}

/** The proxy's tools with origin and behavior; select one to edit its rule. */
export function ToolList({ byTool }: { byTool: Record<string, Issue[]> }): JSX.Element {
  const { tools, seen, forms, passthrough, selected, select, setPassthrough, loading, edit } = useRules();
  const listed = new Set(forms.map((f) => f.name));
  const behaviors = new Map(forms.map((f) => [f.name, f.behavior]));
  const hiddenByRule = new Set(forms.filter((f) => f.hidden).map((f) => f.name));
  const list = rows(tools, seen, listed, passthrough, behaviors, hiddenByRule);
  return (
    <section className="card rules-tools" aria-label="Tools">
      <h2>Tools</h2>
      {list.length === 0 && (
        <p className="muted small">
          {loading ? 'loading…' : 'No tools known yet: start the proxy, or add a synthetic tool.'}
        </p>
      )}
      <ul>
        {list.map((row) => (
          <li key={row.name} className={row.hidden ? 'tool-row is-hidden' : 'tool-row'}>
            <button
              type="button"
              className="tool-pick"
              aria-current={row.name === selected ? 'true' : undefined}
              onClick={() => select(row.name)}
              data-testid={`tool-${row.name}`}
            >
              <span className="tool-name" title={visibleName(row.name)}>
                <Name value={row.name} />
                {byTool[row.name]?.length ? <span className="error"> ⚠</span> : null}
              </span>
              <span className="tool-tags">
                <span className="badge">{row.origin}</span>
                {row.hidden ? (
                  <span className="badge hidden">hidden</span>
                ) : (
                  <span className={`badge ${row.behavior}`}>{row.behavior}</span>
                )}
                {row.listed && (
                  <span className="badge dirty" title="has a rule">
                    rule
                  </span>
                )}
              </span>
            </button>
            {(hiddenByRule.has(row.name) || !row.hidden) && (
              <button
                type="button"
                className="small tool-hide"
                aria-pressed={hiddenByRule.has(row.name)}
                aria-label={`${hiddenByRule.has(row.name) ? 'Show' : 'Hide'} ${row.name}`}
                title={
                  hiddenByRule.has(row.name) ? 'list it again' : 'leave it out of tools/list; calls to it are refused'
                }
                onClick={() => edit(row.name, { hidden: !hiddenByRule.has(row.name) })}
              >
                {hiddenByRule.has(row.name) ? 'Show' : 'Hide'}
              </button>
            )}
          </li>
        ))}
      </ul>
      <label className="small" style={{ display: 'flex', gap: 6, alignItems: 'center', margin: '8px 0' }}>
        <input type="checkbox" checked={!passthrough} onChange={(e) => setPassthrough(!e.target.checked)} />
        Hide upstream tools without a rule (passthrough off)
      </label>
      <AddTool />
    </section>
  );
}
