import { EventEmitter } from 'node:events';
import { readsCassette, writesCassette, type Mode } from '../../shared/modes.js';
import type { Overlay } from '../../shared/rules/schema.js';
import type { ExchangeEvent } from '../../shared/traffic.js';
import { buildResultHasher } from './cassette/hash.js';
import { compileRedactions } from './cassette/redact.js';
import { CassetteStore } from './cassette/store.js';
import { Breakpoints } from './pipeline/breakpoints.js';
import { McpEndpoint } from './pipeline/mcp-endpoint.js';
import { Recorder } from './pipeline/recorder.js';
import { Replayer, type RepeatPolicy } from './pipeline/replayer.js';
import { RuleSet } from './rules/rule-set.js';
import { HttpUpstream } from './upstream/http-upstream.js';

export interface EndpointOptions {
  mode: Mode;
  upstreamUrl?: string;
  /** extra headers sent upstream on every request (e.g. the upstream's own Authorization) */
  upstreamHeaders?: Record<string, string>;
  /** abort an upstream call that has not finished after this long */
  upstreamTimeoutMs?: number;
  cacheDir?: string;
  clean?: boolean;
  resultHashPath?: string;
  resultHashIgnore?: string[];
  /** regular expressions whose matches are written as "[REDACTED]" everywhere in the cassette (--redact) */
  redact?: string[];
  /** replay: dot paths into params ignored when matching a request to an entry (e.g. arguments.timestamp) */
  matchIgnore?: string[];
  /** replay: after the recorded answers of a repeated request are used up: last (default), cycle or error */
  repeat?: RepeatPolicy;
  rules?: { overlay: Overlay; instructions?: string };
  serverInfo?: { name: string; version: string };
  onLog?: (line: string, level: 'info' | 'warn') => void;
}

export interface BuiltEndpoint {
  endpoint: McpEndpoint;
  store?: CassetteStore;
  rules?: RuleSet;
  events: EventEmitter<{ exchange: [ExchangeEvent] }>;
  flush(): Promise<void>;
  close(): Promise<void>;
}

/** One MCP endpoint with its sources (upstream, cassette) and rules — a CLI proxy, or one `serve` session. */
export async function createEndpoint(options: EndpointOptions): Promise<BuiltEndpoint> {
  const { mode } = options;
  const log = (line: string): void => options.onLog?.(line, 'info');
  const warn = (line: string): void => options.onLog?.(line, 'warn');
  const usesCassette = mode !== 'proxy-only' && (options.cacheDir !== undefined || mode !== 'replay' || !options.rules);
  const store = usesCassette
    ? await CassetteStore.open(options.cacheDir ?? './cache', { clean: options.clean && mode === 'record', log: warn, looseKey: readsCassette(mode) ? Replayer.looseIndex(options.matchIgnore) : undefined })
    : undefined;
  const upstream = options.upstreamUrl ? new HttpUpstream(options.upstreamUrl, options.upstreamHeaders, options.upstreamTimeoutMs) : undefined;
  const recorder = store && writesCassette(mode) ? new Recorder(store, buildResultHasher({ path: options.resultHashPath, ignore: options.resultHashIgnore }), compileRedactions(options.redact ?? [])) : undefined;
  const events = new EventEmitter<{ exchange: [ExchangeEvent] }>();
  const rules = options.rules ? new RuleSet(options.rules.overlay, options.rules.instructions) : undefined;
  const endpoint = new McpEndpoint({
    mode,
    upstream,
    rules,
    ownSessions: mode === 'replay' || mode === 'hybrid' || rules !== undefined,
    serverInfo: options.serverInfo ?? { name: 'mcp-rewind', version: '0' },
    breakpoints: new Breakpoints(),
    recorder,
    replayer: store && readsCassette(mode) ? new Replayer(store, { repeat: options.repeat, matchIgnore: options.matchIgnore }) : undefined,
    emit: (exchange) => {
      if (events.listenerCount('exchange') > 0) events.emit('exchange', exchange.toEvent());
    },
    observed: () => events.listenerCount('exchange') > 0,
    log,
    warn,
  });
  return {
    endpoint,
    store,
    rules,
    events,
    flush: async () => {
      await recorder?.flush();
    },
    async close() {
      endpoint.ctx.breakpoints?.releaseAll();
      await recorder?.flush();
      const ending: Array<Promise<void>> = [];
      for (const session of endpoint.sessions.all()) {
        for (const stream of session.streams) stream.end();
        // upstream sessions the proxy opened itself end with it (mirrored ones belong to their clients)
        if (endpoint.ctx.ownSessions && session.upstreamId) ending.push(endpoint.ctx.upstream?.endSession(session.upstreamId, session.protocolVersion) ?? Promise.resolve());
      }
      await Promise.all(ending);
      endpoint.ctx.upstream?.close();
      store?.close();
    },
  };
}
