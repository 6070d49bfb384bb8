import type { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { MODE_TRAITS, type Mode } from '../../shared/modes.js';
import { missingUpstream } from '../../shared/proxy-config.js';
import type { ExchangeEvent } from '../../shared/traffic.js';
import type { CassetteStore } from './cassette/store.js';
import type { Breakpoints } from './pipeline/breakpoints/breakpoints.js';
import type { McpEndpoint } from './pipeline/endpoint.js';
import type { ToolsMemory } from './pipeline/core/rule-hook.js';
import type { RecordFailures } from './pipeline/record/recorder.js';
import type { RuleSet } from './rules/rule-set.js';
import { createEndpoint } from './endpoint-factory.js';
import type { EndpointOptions } from './pipeline-parts.js';
import { listen, type EdgeLimits } from './http/edge.js';
import { serveMcp } from './pipeline/mcp-http.js';
import { pathOf } from './http/url.js';
import { sendJson } from './http/sse.js';
import type { LegacySseEndpoint } from './transports/downstream-sse.js';
import { silent } from './log.js';

export interface ProxyOptions extends EndpointOptions {
  host?: string;
  port?: number;
  allowedHosts?: string[];
  /** browser origins given leave (guard.ts); a function is read per request */
  allowedOrigins?: readonly string[] | (() => readonly string[]);
  /** connection limits of the HTTP edge (http/edge.ts EDGE_LIMITS) */
  limits?: Partial<EdgeLimits>;
}

export interface RunningProxy {
  readonly mode: Mode;
  readonly port: number;
  /** the local MCP endpoint, http://127.0.0.1:<port>/mcp */
  readonly url: string;
  readonly store?: CassetteStore;
  /** the proxy's rules, when started with some: replace them live (then endpoint.notifyAll tools/list_changed) */
  readonly rules?: RuleSet;
  readonly endpoint: McpEndpoint;
  /** the upstream's tool list as the rules last saw it */
  readonly memory: ToolsMemory;
  /** tools/call breakpoints (inactive without a rule) */
  readonly breakpoints: Breakpoints;
  /** 'exchange' events (ExchangeEvent) for every finished exchange */
  readonly events: EventEmitter<{ exchange: [ExchangeEvent] }>;
  /** what could not be recorded so far (a full disk…): each such exchange also carries a "not recorded: …" flag */
  readonly recordFailures: RecordFailures;
  /** resolves once the cassette is fully indexed (replay's loose keys too); the name index is ready at start */
  readonly indexed: Promise<void>;
  /** waits until every recording started so far is on disk */
  flush(): Promise<void>;
  close(): Promise<void>;
}

/** The CLI's proxy: one MCP endpoint served at every path (as mcp-rewind does), plus GET /healthcheck. */
export async function startProxy(options: ProxyOptions): Promise<RunningProxy> {
  const { mode } = options;
  if (MODE_TRAITS[mode].forwards && !options.upstreamUrl) throw new Error(`upstreamUrl: ${missingUpstream(mode)}`);
  const built = await createEndpoint(options);
  // GET /sse + POST /messages for legacy HTTP+SSE clients, made at the first request that may be theirs
  const legacy: { sse?: Promise<LegacySseEndpoint> } = {};
  const http = await listen(
    {
      host: options.host ?? '127.0.0.1',
      port: options.port,
      allowedHosts: options.allowedHosts,
      allowedOrigins: options.allowedOrigins,
      ownLoopbackOrigin: true, // a page of the proxy's own origin (none is served, but the MCP spec accepts it)
      limits: options.limits,
    },
    (req, res) => {
      const path = pathOf(req);
      if (path === '/healthcheck' && req.method === 'GET') return Promise.resolve(healthcheck(res, mode, built.store));
      // the legacy SSE paths parse the URL: only for requests that may be theirs (the hot path stays a string check)
      if (path.includes('/sse') || path.includes('/messages')) {
        legacy.sse ??= import('./transports/downstream-sse.js').then((m) =>
          m.createLegacySseEndpoint(http.url('/mcp'), options.onLog),
        );
        return legacy.sse
          .then((sse) => sse.handle(req, res))
          .then((handled) => (handled ? undefined : serveMcp(built.endpoint, req, res, path)));
      }
      return serveMcp(built.endpoint, req, res, path);
    },
    options.onLog ?? silent,
  );
  try {
    await storeReady(built.store, options);
  } catch (error) {
    await http.close();
    await built.close();
    throw error;
  }
  return {
    mode,
    port: http.port,
    url: http.url('/mcp'),
    store: built.store,
    indexed: built.store?.indexed ?? Promise.resolve(),
    rules: built.rules,
    endpoint: built.endpoint,
    memory: built.memory,
    breakpoints: built.breakpoints,
    events: built.events,
    recordFailures: built.recordFailures,
    flush: built.flush,
    async close() {
      built.breakpoints.releaseAll(); // paused calls go on: the server can then close
      await built.flush();
      await (await legacy.sse)?.close();
      await http.close();
      await built.close();
    },
  };
}

function healthcheck(res: ServerResponse, mode: Mode, store: CassetteStore | undefined): void {
  sendJson(res, 200, {
    status: 'ok',
    mode,
    ...(store ? { cassette: { entries: store.size, ready: store.isReady, indexed: store.isIndexed } } : {}),
  });
}

/**
 * The port answers from the start (requests wait for the index); the caller gets the proxy once its cassette is
 * indexed by name — about a second for 300,000 entries — and replay's loose keys follow in the background.
 */
async function storeReady(store: CassetteStore | undefined, options: ProxyOptions): Promise<void> {
  void store?.indexed.then(
    () =>
      options.onLog?.(
        `cassette: ${store.size} entries of ${store.dir} indexed in ${((store.indexedMs ?? 0) / 1000).toFixed(2)} s`,
        'info',
      ),
    () => {},
  );
  await store?.ready;
}
