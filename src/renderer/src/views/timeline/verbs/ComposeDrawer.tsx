import { useEffect, useMemo, useRef, useState, type JSX, type RefObject } from 'react';
import { UriTemplate } from '@modelcontextprotocol/sdk/shared/uriTemplate.js';
import type { ProxyCatalog } from '../../../../../shared/api.js';
import { onTabListKeyDown, tabStop } from '../../../components/tabs.js';
import { useFocusReturn } from '../../../components/focus.js';
import { formOf, initialValue, promptForm } from '../../../models/schema-form.js';
import { visibleName } from '../../../models/visible-text.js';
import { usePanels } from '../../../stores/panels.js';
import { useProxies } from '../../../stores/proxies.js';
import { flushTraffic } from '../../../stores/traffic.js';
import { loadCatalog, useVerbs } from '../../../stores/verbs.js';
import { AppSessionPanel } from './AppSessionPanel.js';
import { useTimelineUi } from '../../../stores/timeline-ui.js';
import { answerLine, RequestEditor, type Sent } from './RequestEditor.js';

type Kind = 'tools' | 'prompts' | 'resources';
const KINDS: Kind[] = ['tools', 'prompts', 'resources'];

function ToolComposer({
  proxyId,
  tools,
  onSent,
}: {
  proxyId: string;
  tools: ProxyCatalog['tools'];
  onSent(sent: Sent): void;
}): JSX.Element {
  const [name, setName] = useState(tools[0]?.name ?? '');
  const tool = tools.find((t) => t.name === name) ?? tools[0];
  const schema = tool?.inputSchema;
  const params = useMemo(
    () => ({ name: tool?.name ?? '', arguments: initialValue(formOf(schema)) ?? {} }),
    [tool, schema],
  );
  if (!tool) return <p className="muted small">This proxy lists no tools.</p>;
  return (
    <>
      <label className="compose-pick">
        Tool
        <select aria-label="Tool" value={tool.name} onChange={(e) => setName(e.target.value)}>
          {tools.map((t) => (
            <option key={t.name} value={t.name}>
              {t.title ? `${visibleName(t.name)} — ${visibleName(t.title)}` : visibleName(t.name)}
            </option>
          ))}
        </select>
      </label>
      {tool.description && <p className="muted small compose-description">{tool.description}</p>}
      <RequestEditor
        key={`${proxyId}:${tool.name}`}
        proxyId={proxyId}
        method="tools/call"
        params={params}
        schema={schema ?? { type: 'object' }}
        kind="compose"
        sendLabel={`Call ${visibleName(tool.name)}`}
        label={`Arguments of ${visibleName(tool.name)}`}
        onSent={onSent}
      />
    </>
  );
}

function PromptComposer({
  proxyId,
  prompts,
  onSent,
}: {
  proxyId: string;
  prompts: ProxyCatalog['prompts'];
  onSent(sent: Sent): void;
}): JSX.Element {
  const [name, setName] = useState(prompts[0]?.name ?? '');
  const prompt = prompts.find((p) => p.name === name) ?? prompts[0];
  const form = useMemo(() => promptForm(prompt?.arguments), [prompt]);
  const params = useMemo(() => ({ name: prompt?.name ?? '', arguments: {} }), [prompt]);
  if (!prompt) return <p className="muted small">This proxy lists no prompts.</p>;
  return (
    <>
      <label className="compose-pick">
        Prompt
        <select aria-label="Prompt" value={prompt.name} onChange={(e) => setName(e.target.value)}>
          {prompts.map((p) => (
            <option key={p.name} value={p.name}>
              {visibleName(p.name)}
            </option>
          ))}
        </select>
      </label>
      {prompt.description && <p className="muted small compose-description">{prompt.description}</p>}
      <RequestEditor
        key={`${proxyId}:${prompt.name}`}
        proxyId={proxyId}
        method="prompts/get"
        params={params}
        form={form}
        kind="compose"
        sendLabel={`Get ${visibleName(prompt.name)}`}
        label={`Arguments of ${visibleName(prompt.name)}`}
        onSent={onSent}
      />
    </>
  );
}

/** resources/read of a listed resource, of a template filled in (RFC 6570, the SDK's UriTemplate), or of any URI. */
function ResourceComposer({
  proxyId,
  catalog,
  onSent,
}: {
  proxyId: string;
  catalog: ProxyCatalog;
  onSent(sent: Sent): void;
}): JSX.Element {
  const [from, setFrom] = useState<'list' | 'template'>(
    catalog.resources.length || !catalog.resourceTemplates.length ? 'list' : 'template',
  );
  const [uri, setUri] = useState(catalog.resources[0]?.uri ?? '');
  const [templateIndex, setTemplateIndex] = useState(0);
  const [vars, setVars] = useState<Record<string, string>>({});
  const template = catalog.resourceTemplates[templateIndex];
  const parsed = useMemo(() => {
    if (!template) return undefined;
    try {
      return new UriTemplate(template.uriTemplate);
    } catch {
      return undefined;
    }
  }, [template]);
  const expanded = from === 'template' && parsed ? parsed.expand(vars) : uri;
  const params = useMemo(() => ({ uri: expanded }), [expanded]);
  return (
    <>
      <div className="segmented" role="radiogroup" aria-label="Resource from">
        <label>
          <input type="radio" name="resource-from" checked={from === 'list'} onChange={() => setFrom('list')} /> URI
        </label>
        <label>
          <input
            type="radio"
            name="resource-from"
            checked={from === 'template'}
            disabled={!catalog.resourceTemplates.length}
            onChange={() => setFrom('template')}
          />{' '}
          Template ({catalog.resourceTemplates.length})
        </label>
      </div>
      {from === 'list' ? (
        <label className="compose-pick">
          URI
          <input
            aria-label="Resource URI"
            list="compose-resources"
            value={uri}
            onChange={(e) => setUri(e.target.value)}
            placeholder="scheme://path"
            spellCheck={false}
          />
          <datalist id="compose-resources">
            {catalog.resources.map((r) => (
              <option key={r.uri} value={r.uri}>
                {r.name ?? r.uri}
              </option>
            ))}
          </datalist>
        </label>
      ) : (
        <>
          <label className="compose-pick">
            Template
            <select
              aria-label="Resource template"
              value={templateIndex}
              onChange={(e) => (setTemplateIndex(Number(e.target.value)), setVars({}))}
            >
              {catalog.resourceTemplates.map((t, i) => (
                <option key={t.uriTemplate} value={i}>
                  {t.name ? `${visibleName(t.name)} — ${visibleName(t.uriTemplate)}` : visibleName(t.uriTemplate)}
                </option>
              ))}
            </select>
          </label>
          {template?.description && <p className="muted small compose-description">{template.description}</p>}
          {parsed?.variableNames.map((name) => (
            <label key={name} className="compose-pick">
              {name}
              <input
                aria-label={`Template variable ${name}`}
                value={vars[name] ?? ''}
                onChange={(e) => setVars({ ...vars, [name]: e.target.value })}
              />
            </label>
          ))}
          <p className="small">
            URI: <code>{expanded}</code>
          </p>
        </>
      )}
      <RequestEditor
        key={`${proxyId}:${expanded}`}
        proxyId={proxyId}
        method="resources/read"
        params={params}
        kind="compose"
        sendLabel="Read resource"
        label="Resource"
        onSent={onSent}
      />
    </>
  );
}

/** The running proxies, and the one to call through: the one picked, else the one Compose was opened for, else the first. */
function useComposeProxy(composeProxy: string | undefined) {
  const proxies = useProxies((s) => s.proxies).filter((p) => p.state === 'running');
  const [picked, setPicked] = useState<string>();
  const proxyId = proxies.some((p) => p.id === (picked ?? composeProxy))
    ? ((picked ?? composeProxy) as string)
    : (proxies[0]?.id ?? '');
  return { proxies, proxyId, setPicked };
}

/** Compose takes the focus when it opens (Esc then closes it), and gives it back when it closes. */
function useFocusOnOpen(open: boolean): RefObject<HTMLHeadingElement | null> {
  const heading = useRef<HTMLHeadingElement>(null);
  useFocusReturn(open);
  useEffect(() => {
    if (open) heading.current?.focus();
  }, [open]);
  return heading;
}

/**
 * Compose: call any tool, prompt or resource of a running proxy from a form generated from its schema, through the
 * proxy's whole pipeline on the app's own session. What the proxy offers is listed through that session (so rules'
 * hidden and synthetic tools show as an agent sees them).
 */
export function ComposeDrawer(): JSX.Element | null {
  const { compose: open, composeProxy, closeCompose } = usePanels();
  const { proxies, proxyId, setPicked } = useComposeProxy(composeProxy);
  const entry = useVerbs((s) => s.catalogs[proxyId]);
  const [sent, setSent] = useState<Sent>();
  useEffect(() => {
    if (open && proxyId) void loadCatalog(proxyId);
  }, [open, proxyId]);
  const heading = useFocusOnOpen(open);
  const [kind, setKind] = useState<Kind>('tools');
  if (!open) return null;
  const catalog = entry?.catalog;
  return (
    <aside
      className="drawer compose-panel"
      aria-label="Compose"
      onKeyDown={(e) => {
        if (
          e.key === 'Escape' &&
          !e.defaultPrevented &&
          !(e.target as HTMLElement).closest('.cm-editor, [role="menu"]')
        ) {
          e.stopPropagation();
          closeCompose();
        }
      }}
    >
      <ComposeHeader
        heading={heading}
        proxies={proxies}
        proxyId={proxyId}
        onPick={(id) => (setPicked(id), setSent(undefined))}
        loading={entry?.loading}
      />
      <div className="drawer-body">
        {!proxyId ? (
          <p className="muted small">No proxy is running: start one (or Run demo) to call its tools.</p>
        ) : entry?.error ? (
          <p className="error small" role="alert">
            {entry.error}
          </p>
        ) : !catalog ? (
          <p className="muted small">Listing what the proxy offers…</p>
        ) : (
          <CatalogComposer
            proxyId={proxyId}
            catalog={catalog}
            kind={kind}
            onKind={(k) => (setKind(k), setSent(undefined))}
            sent={sent}
            onSent={setSent}
          />
        )}
      </div>
    </aside>
  );
}

/** The proxy to call through (and listing what it offers again), and the way out. */
function ComposeHeader(props: {
  heading: RefObject<HTMLHeadingElement | null>;
  proxies: Array<{ id: string; name: string }>;
  proxyId: string;
  onPick(id: string): void;
  loading?: boolean;
}): JSX.Element {
  const { heading, proxies, proxyId } = props;
  const closeCompose = usePanels((s) => s.closeCompose);
  return (
    <header>
      <h2 ref={heading} tabIndex={-1}>
        Compose
      </h2>
      <select aria-label="Proxy to call through" value={proxyId} onChange={(e) => props.onPick(e.target.value)}>
        {proxies.map((p) => (
          <option key={p.id} value={p.id}>
            {p.name}
          </option>
        ))}
      </select>
      <button
        type="button"
        className="small"
        disabled={!proxyId || props.loading}
        onClick={() => void loadCatalog(proxyId, true)}
        title="List the proxy's tools, prompts and resources again"
      >
        ↻
      </button>
      <span className="spacer" />
      <button type="button" onClick={closeCompose} aria-label="Close compose" title="Close (Esc)">
        ✕
      </button>
    </header>
  );
}

/** What the proxy offers as tabs (tools, prompts, resources), the composer of the kind chosen, and its answer. */
function CatalogComposer(props: {
  proxyId: string;
  catalog: ProxyCatalog;
  kind: Kind;
  onKind(kind: Kind): void;
  sent?: Sent;
  onSent(sent: Sent): void;
}): JSX.Element {
  const { proxyId, catalog, kind, sent, onSent } = props;
  const counts: Record<Kind, number> = {
    tools: catalog.tools.length,
    prompts: catalog.prompts.length,
    resources: catalog.resources.length + catalog.resourceTemplates.length,
  };
  return (
    <>
      <div
        className="tl-detail-tabs"
        role="tablist"
        aria-label="What to call"
        onKeyDown={(e) => onTabListKeyDown(e, (i) => props.onKind(KINDS[i]))}
      >
        {KINDS.map((k) => (
          <button
            key={k}
            type="button"
            role="tab"
            tabIndex={tabStop(k === kind)}
            aria-selected={k === kind}
            className={k === kind ? 'active' : undefined}
            onClick={() => props.onKind(k)}
          >
            {k[0].toUpperCase() + k.slice(1)} ({counts[k]})
          </button>
        ))}
      </div>
      <AppSessionPanel proxyId={proxyId} />
      {catalog.problems.length > 0 && <p className="muted small">{catalog.problems.join(' · ')}</p>}
      {kind === 'tools' && <ToolComposer key={proxyId} proxyId={proxyId} tools={catalog.tools} onSent={onSent} />}
      {kind === 'prompts' && (
        <PromptComposer key={proxyId} proxyId={proxyId} prompts={catalog.prompts} onSent={onSent} />
      )}
      {kind === 'resources' && <ResourceComposer key={proxyId} proxyId={proxyId} catalog={catalog} onSent={onSent} />}
      {sent && <SentLine sent={sent} />}
    </>
  );
}

/** The answer in one line, and the way to its exchange in the timeline. */
function SentLine({ sent }: { sent: Sent }): JSX.Element {
  const select = useTimelineUi((s) => s.select);
  const closeCompose = usePanels((s) => s.closeCompose);
  return (
    <p className="re-sent small" role="status" aria-label="Answer">
      {sent.seq !== undefined ? `#${sent.seq} ` : ''}
      {answerLine(sent.response)}{' '}
      {sent.seq !== undefined && (
        <button
          type="button"
          className="link"
          onClick={() => {
            flushTraffic();
            select(sent.seq, true);
            closeCompose();
          }}
        >
          Open #{sent.seq} in the timeline
        </button>
      )}
    </p>
  );
}
