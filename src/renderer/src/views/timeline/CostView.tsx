import { useState, type JSX } from 'react';
import type { CostScopeInput, ProxyInfo, SourceInfo } from '../../../../shared/api.js';
import type { CostDiff, CostReport } from '../../../../shared/insight/cost.js';
import { useCostReport } from '../../hooks/cost-report.js';
import { sessionLabel, type SessionInfo } from './sessions.js';

const n = (value: number): string => value.toLocaleString('en-US');
const signed = (value: number): string => (value > 0 ? `+${n(value)}` : n(value));

/** A recording to measure: a proxy's (or opened file's) exchanges, one of its sessions, or a file on disk. */
function scopes(
  proxies: ProxyInfo[],
  sources: SourceInfo[],
  sessions: Map<string, SessionInfo>,
): Array<[string, string, CostScopeInput]> {
  const named = [
    ...proxies.map((p): [string, string] => [p.id, p.name]),
    ...sources.map((s): [string, string] => [s.id, `${s.name} (file)`]),
  ];
  const out: Array<[string, string, CostScopeInput]> = [];
  for (const [id, name] of named) {
    out.push([id, `${name}: all sessions`, { proxyId: id }]);
    for (const info of sessions.values())
      if (info.proxyId === id)
        out.push([
          `${id} ${info.id}`,
          `${name}: session ${sessionLabel(info, info.id)}`,
          { proxyId: id, sessionId: info.id },
        ]);
  }
  return out;
}

function Report({ report }: { report: CostReport }): JSX.Element {
  return (
    <div className="cost-report" data-testid="cost-report">
      <p className="cost-headline">
        <strong>{report.label}</strong>: its lists cost{' '}
        <strong data-testid="cost-before-first-call">{n(report.beforeFirstCall)} tokens</strong> before the first call
      </p>
      <p className="small muted">
        tools {n(report.lists.tool)} · prompts {n(report.lists.prompt)} · resources {n(report.lists.resource)} ·
        templates {n(report.lists.template)} · instructions {n(report.lists.instructions)} — results:{' '}
        {report.results.count} ({n(report.results.tokens)} tokens). Counted with {report.tokenizer}; other models’
        tokenizers differ by about 10–20%.
      </p>
      <table className="grid cost-table" aria-label="The 10 largest descriptions">
        <caption>The 10 largest descriptions</caption>
        <thead>
          <tr>
            <th>Kind</th>
            <th>Name</th>
            <th className="num">Description</th>
            <th className="num">Whole definition</th>
          </tr>
        </thead>
        <tbody>
          {report.largestDescriptions.map((d) => (
            <tr key={`${d.kind} ${d.name}`}>
              <td>{d.kind}</td>
              <td>
                <code>{d.name}</code>
              </td>
              <td className="num">{n(d.description)}</td>
              <td className="num">{n(d.tokens)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Diff({ diff }: { diff: CostDiff }): JSX.Element {
  return (
    <div className="cost-diff" data-testid="cost-diff">
      <p className="cost-headline">
        <strong>{diff.b}</strong> against <strong>{diff.a}</strong>:{' '}
        {signed(diff.beforeFirstCall.b - diff.beforeFirstCall.a)} tokens before the first call (
        {n(diff.beforeFirstCall.a)} → {n(diff.beforeFirstCall.b)})
      </p>
      <table className="grid cost-table" aria-label="What changed">
        <thead>
          <tr>
            <th>Kind</th>
            <th>Name</th>
            <th className="num">A</th>
            <th className="num">B</th>
            <th className="num">Change</th>
          </tr>
        </thead>
        <tbody>
          {diff.changes.slice(0, 100).map((c) => (
            <tr key={`${c.kind} ${c.name}`}>
              <td>{c.kind}</td>
              <td>
                <code>{c.name}</code>
              </td>
              <td className="num">{c.a === undefined ? '—' : n(c.a)}</td>
              <td className="num">{c.b === undefined ? '—' : n(c.b)}</td>
              <td className="num">{signed((c.b ?? 0) - (c.a ?? 0))}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The Timeline's Cost view: what a recording puts in the context, and the difference from another recording. */
export function CostView({
  proxies,
  sources,
  sessions,
}: {
  proxies: ProxyInfo[];
  sources: SourceInfo[];
  sessions: Map<string, SessionInfo>;
}): JSX.Element {
  const options = scopes(proxies, sources, sessions);
  const [which, setWhich] = useState(options[0]?.[0] ?? '');
  const [against, setAgainst] = useState('');
  const [path, setPath] = useState('');
  const scopeOf = (key: string): CostScopeInput | undefined =>
    key === 'path' ? (path.trim() ? { path: path.trim() } : undefined) : options.find(([k]) => k === key)?.[2];
  const { report, diff, error } = useCostReport(scopeOf(which), against ? scopeOf(against) : undefined);
  return (
    <div className="cost-view">
      <div className="fields cost-fields">
        <label>
          Recording
          <select aria-label="Recording" value={which} onChange={(e) => setWhich(e.target.value)}>
            {options.map(([k, label]) => (
              <option key={k} value={k}>
                {label}
              </option>
            ))}
          </select>
        </label>
        <label>
          Compare with
          <select aria-label="Compare with" value={against} onChange={(e) => setAgainst(e.target.value)}>
            <option value="">nothing</option>
            {options.map(([k, label]) => (
              <option key={k} value={k}>
                {label}
              </option>
            ))}
            <option value="path">a cassette or HAR file…</option>
          </select>
        </label>
        {against === 'path' && (
          <label className="wide">
            File or folder
            <input
              aria-label="Cassette or HAR path"
              value={path}
              placeholder="/path/to/cassette"
              onChange={(e) => setPath(e.target.value)}
            />
          </label>
        )}
      </div>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {report && <Report report={report} />}
      {diff && <Diff diff={diff} />}
    </div>
  );
}
