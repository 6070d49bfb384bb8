import { useEffect, useMemo, useRef, useState, type JSX } from 'react';
import type { ProxyInfo, SourceInfo } from '../../../../shared/api.js';
import type { CompletionValues } from '../../models/filter-complete.js';
import { visibleName } from '../../models/visible-text.js';
import { isFiltering, queryOf, type TimelineFilter } from './model.js';
import { QueryBox } from './QueryBox.js';
import { sessionLabel, type SessionInfo } from './sessions.js';
import { useTimelineUi } from '../../stores/timeline-ui.js';

const DEBOUNCE_MS = 150;

interface Props {
  methods: string[];
  tools: string[];
  /** protocol revisions seen */
  revisions: string[];
  proxies: ProxyInfo[];
  /** files opened into the timeline (a proxy filter value too) */
  sources: SourceInfo[];
  sessions: Map<string, SessionInfo>;
  shown: number;
  total: number;
}

/** What the search box completes: the values seen in the traffic, by key. */
function completionValues({
  methods,
  tools,
  revisions,
  proxies,
  sources,
  sessions,
}: Omit<Props, 'shown' | 'total'>): CompletionValues {
  return {
    method: methods.map((m) => [m, 'seen']),
    tool: tools.map((t) => [t, 'seen']),
    revision: revisions.map((r) => [r, 'seen']),
    proxy: [
      ...proxies.map((p): [string, string] => [p.name, `proxy · ${p.config.mode}`]),
      ...sources.map((s): [string, string] => [s.name, 'opened file']),
    ],
    session: [
      ['app', 'the app’s own sessions'],
      ...[...sessions.values()].map((info): [string, string] => [info.id.slice(0, 8), sessionLabel(info, info.id)]),
    ],
  };
}

/** Filter bar: method, tool, status, source, proxy, the query (debounced); "N of M"; `/` focuses the query. */
export function Filters(props: Props): JSX.Element {
  const { methods, tools, proxies, sources, sessions, shown, total } = props;
  const { filter, setFilter, resetFilter } = useTimelineUi();
  const [text, setText] = useState(filter.text);
  const input = useRef<HTMLInputElement>(null);
  const values = useMemo(() => completionValues(props), [methods, tools, props.revisions, proxies, sources, sessions]); // eslint-disable-line react-hooks/exhaustive-deps -- the props it reads
  const problems = queryOf(text).problems;

  // a filter set from elsewhere (a link, a histogram bar, a proxy's ⚠ count, Reset) shows in the box
  const [shownText, setShownText] = useState(filter.text);
  if (shownText !== filter.text) {
    setShownText(filter.text);
    setText(filter.text);
  }

  useEffect(() => {
    if (text === filter.text) return;
    const t = setTimeout(() => setFilter({ text }), DEBOUNCE_MS);
    return () => clearTimeout(t);
  }, [text, filter.text, setFilter]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent): void => {
      const target = e.target as HTMLElement | null;
      const typing =
        target &&
        (target.tagName === 'INPUT' ||
          target.tagName === 'TEXTAREA' ||
          target.tagName === 'SELECT' ||
          target.isContentEditable);
      if (e.key === '/' && !typing) {
        e.preventDefault();
        input.current?.focus();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  const select = (
    name: Exclude<keyof TimelineFilter, 'pinned'>,
    label: string,
    options: Array<[string, string]>,
  ): JSX.Element => (
    <label>
      {label}
      <select aria-label={label} value={filter[name]} onChange={(e) => setFilter({ [name]: e.target.value })}>
        <option value="">all</option>
        {options.map(([value, text]) => (
          <option key={value} value={value}>
            {text}
          </option>
        ))}
      </select>
    </label>
  );

  return (
    <div className="tl-filters fields" role="search" aria-label="Filter exchanges">
      {select(
        'method',
        'Method',
        methods.map((m) => [m, visibleName(m)]),
      )}
      {select(
        'tool',
        'Tool',
        tools.map((t) => [t, visibleName(t)]),
      )}
      {select('status', 'Status', [
        ['ok', 'ok'],
        ['tool error', 'tool error'],
        ['error', 'JSON-RPC error'],
        ['pending', 'pending'],
      ])}
      {select('source', 'Source', [
        ['upstream', 'upstream'],
        ['cache', 'cache'],
        ['proxy', 'proxy'],
        ['rule', 'rule (override / inject)'],
      ])}
      {select('proxy', 'Proxy', [
        ...proxies.map((p): [string, string] => [p.id, p.name]),
        ...sources.map((s): [string, string] => [s.id, `${s.name} (file)`]),
      ])}
      {select(
        'session',
        'Session',
        [...sessions.values()]
          .filter((info) => !filter.proxy || info.proxyId === filter.proxy)
          .map((info) => [info.id, `${sessionLabel(info, info.id)}${info.app ? ' (app)' : ''} · ${info.count}`]),
      )}

      <div className="wide">
        <QueryBox value={text} onChange={setText} values={values} problems={problems} input={input} />
      </div>
      <span className="tl-count muted" data-testid="filter-count">
        {shown} of {total}
      </span>
      {(isFiltering(filter) || text) && (
        <button
          type="button"
          aria-label="Reset filters"
          title="Reset filters"
          onClick={() => {
            setText('');
            resetFilter();
          }}
        >
          ✕ Reset
        </button>
      )}
    </div>
  );
}
