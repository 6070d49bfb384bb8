import { useEffect, useMemo, type JSX } from 'react';
import { useProxies } from '../stores/proxies.js';
import { useRules } from '../stores/rules.js';
import { ApplyBar } from './rules/ApplyBar.js';
import { FieldErrors } from './rules/fields.js';
import { checkDraft } from '../models/rules-form.js';
import { RulesJson } from './rules/RulesJson.js';
import { ToolEditor } from './rules/ToolEditor.js';
import { ToolList } from './rules/ToolList.js';
import './rules/rules.css';

/** Picks the proxy whose rules are edited (the first one by default). */
function ProxyPicker(): JSX.Element | null {
  const proxies = useProxies((s) => s.proxies);
  const proxyId = useRules((s) => s.proxyId);
  const load = useRules((s) => s.load);
  const current = proxies.find((p) => p.id === proxyId);

  useEffect(() => {
    if (!current && proxies.length > 0) void load(proxies[0].id);
  }, [current, proxies, load]);

  // a proxy that just started: its tools can now be known
  const state = current?.state;
  useEffect(() => {
    if (proxyId && state === 'running') void load(proxyId);
  }, [proxyId, state, load]);

  if (proxies.length === 0) return null;
  return (
    <div className="rules-top">
      <label>
        Proxy
        <select value={proxyId ?? ''} onChange={(e) => void load(e.target.value)}>
          {proxies.map((p) => (
            <option key={p.id} value={p.id}>
              {p.name} ({p.state})
            </option>
          ))}
        </select>
      </label>
      {current?.url && <code className="small">{current.url}</code>}
    </div>
  );
}

/** The Rules view: a proxy's merged tool list, a per-tool rule editor validated as you type, and Apply. */
export function RulesView(): JSX.Element {
  const proxies = useProxies((s) => s.proxies);
  const loaded = useProxies((s) => s.loaded);
  const { proxyId, selected, forms, passthrough, instructions } = useRules();
  const check = useMemo(() => checkDraft({ forms, passthrough, instructions }), [forms, passthrough, instructions]);
  const proxy = proxies.find((p) => p.id === proxyId);

  if (loaded && proxies.length === 0) {
    return <p className="muted">No proxy yet: create one in the Timeline view, then write its rules here.</p>;
  }
  return (
    <>
      <ProxyPicker />
      {proxyId && (
        <div className="rules-view">
          <ToolList byTool={check.byTool} />
          <div>
            {selected ? (
              <ToolEditor key={selected} proxyId={proxyId} name={selected} issues={check.byTool[selected] ?? []} />
            ) : (
              <p className="card muted">Select a tool to write its rule: relay, override or inject.</p>
            )}
            <FieldErrors issues={check.general} />
            <ApplyBar check={check} running={proxy?.state === 'running'} />
            <RulesJson value={check.candidate} valid={check.rules !== undefined} />
          </div>
        </div>
      )}
    </>
  );
}
