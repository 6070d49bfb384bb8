import { useEffect, useState, type JSX } from 'react';
import { appSessionCapabilities, type AppSessionConfig } from '../../../../../shared/app-session.js';
import { declaredText, parseRootLines, rootLines } from '../../../models/request-options.js';
import { useTraffic } from '../../../stores/traffic.js';
import { declareAppSession, loadAppSession, loadCatalog, useVerbs } from '../../../stores/verbs.js';
import { EditorActions } from './EditorActions.js';

/** the newest initialize of the proxy by a client other than the app: its name and declared capabilities */
function useAgentDeclared(proxyId: string): { name: string; capabilities: Record<string, unknown> } | undefined {
  // the exchange itself is selected (a stable reference); what it says is read from it
  const init = useTraffic((s) => {
    for (let i = s.exchanges.length - 1; i >= 0; i--) {
      const e = s.exchanges[i];
      if (e.method === 'initialize' && e.proxyId === proxyId && !e.sentBy) return e;
    }
    return undefined;
  });
  if (!init) return undefined;
  const params = init.request.params as
    { clientInfo?: { name?: string }; capabilities?: Record<string, unknown> } | undefined;
  return { name: params?.clientInfo?.name ?? 'the client', capabilities: params?.capabilities ?? {} };
}

/**
 * What the app's own session declares (the server may offer it tools the agent's session does not get: a tool that
 * asks for sampling appears only to a client that declares sampling), beside what the agent's session declared; the
 * user changes it here (it applies from the next call, on a new session).
 */
export function AppSessionPanel({ proxyId }: { proxyId: string }): JSX.Element {
  const config = useVerbs((s) => s.appSession);
  const agent = useAgentDeclared(proxyId);
  const [editing, setEditing] = useState(false);
  useEffect(() => {
    if (!config) void loadAppSession().catch(() => {});
  }, [config]);
  if (!config) return <p className="muted small">Reading the app session…</p>;
  const mine = declaredText(
    appSessionCapabilities(config),
    config.capabilities.roots ? config.roots.length : undefined,
  );
  const theirs = agent && declaredText(agent.capabilities);
  return (
    <div className="app-session small">
      <p data-testid="app-session-declared">
        The app&apos;s session declares <strong>{mine}</strong>
        {agent ? (
          <>
            ; {agent.name}&apos;s session declared <strong>{theirs}</strong>
            {theirs !== mine && ' — the server may offer the two different tools'}
          </>
        ) : null}
        .{' '}
        <button type="button" className="link" aria-expanded={editing} onClick={() => setEditing(!editing)}>
          {editing ? 'Close' : 'Change…'}
        </button>
      </p>
      {editing && <AppSessionForm proxyId={proxyId} config={config} onDone={() => setEditing(false)} />}
    </div>
  );
}

function AppSessionForm({
  proxyId,
  config,
  onDone,
}: {
  proxyId: string;
  config: AppSessionConfig;
  onDone(): void;
}): JSX.Element {
  const [caps, setCaps] = useState(config.capabilities);
  const [roots, setRoots] = useState(rootLines(config.roots));
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  async function apply(): Promise<void> {
    setBusy(true);
    setError(undefined);
    try {
      await declareAppSession({ capabilities: caps, roots: parseRootLines(roots) });
      onDone();
      await loadCatalog(proxyId, true); // what the server offers the new session
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  }
  const box = (key: keyof AppSessionConfig['capabilities'], label: string): JSX.Element => (
    <label className="inline">
      <input type="checkbox" checked={caps[key]} onChange={(e) => setCaps({ ...caps, [key]: e.target.checked })} />{' '}
      {label}
    </label>
  );
  return (
    <fieldset className="app-session-form">
      <legend>App session capabilities</legend>
      {box('sampling', 'sampling')} {box('elicitation', 'elicitation')} {box('roots', 'roots')}
      <label className="app-session-roots">
        <span>Roots (one file:// URI a line, a name after a space)</span>
        <textarea
          rows={2}
          value={roots}
          disabled={!caps.roots}
          onChange={(e) => setRoots(e.target.value)}
          placeholder="file:///home/me/project project"
        />
      </label>
      <EditorActions error={error}>
        <button type="button" className="primary small" disabled={busy} onClick={() => void apply()}>
          Apply (new session)
        </button>
      </EditorActions>
    </fieldset>
  );
}
