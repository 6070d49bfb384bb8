import { MODE_TRAITS } from '../../shared/modes.js';
import type { CassetteStore } from './cassette/store.js';
import { silent } from './log.js';
import type { Breakpoints } from './pipeline/breakpoints/breakpoints.js';
import { HookChain } from './pipeline/core/chain.js';
import { McpEndpoint } from './pipeline/endpoint.js';
import { DEFAULT_SESSION_IDLE_MS } from './pipeline/core/session.js';
import type { EventHook } from './pipeline/core/events.js';
import type { RecordFailures } from './pipeline/record/recorder.js';
import type { ToolsMemory } from './pipeline/core/rule-hook.js';
import type { RuleSet } from './rules/rule-set.js';
import { HttpUpstream } from './upstream/http-upstream.js';
import { createParts, type EndpointOptions } from './pipeline-parts.js';

export interface BuiltEndpoint {
  endpoint: McpEndpoint;
  store?: CassetteStore;
  rules?: RuleSet;
  /** the upstream's tool list as the rules last saw it */
  memory: ToolsMemory;
  breakpoints: Breakpoints;
  events: EventHook['emitter'];
  /** what could not be recorded (record, hybrid) */
  recordFailures: RecordFailures;
  flush(): Promise<void>;
  close(): Promise<void>;
}

/**
 * One MCP endpoint with its sources (upstream, cassette) and the hooks of its mode (createParts) — a CLI proxy, or
 * one `serve` session; nothing downstream asks which mode it is in.
 */
export async function createEndpoint(options: EndpointOptions): Promise<BuiltEndpoint> {
  const log = options.onLog ?? silent;
  const live: { endpoint?: McpEndpoint } = {}; // the rules ask whether an upstream is there now (serve switches it)
  const parts = await createParts(options, () => live.endpoint?.upstream !== undefined);
  // a mode that does not forward never talks to a server, whatever it is given
  const upstream =
    options.upstreamUrl && MODE_TRAITS[options.mode].forwards ? upstreamOf(options.upstreamUrl, options) : undefined;
  const { store, replayer, recorder, rules, ruleHook, memory, breakpoints, events, hooks } = parts;
  const endpoint = new McpEndpoint({
    upstream,
    hooks: new HookChain(hooks, log),
    rules: ruleHook,
    cassette: replayer,
    // the cassette may answer initialize, and rules may outlive (or switch) the upstream: the proxy owns the sessions
    ownSessions: replayer !== undefined || rules !== undefined || upstream === undefined,
    serverInfo: options.serverInfo ?? { name: 'mcp-rewind', version: '0' },
    sessionIdleMs: options.sessionIdleMs ?? DEFAULT_SESSION_IDLE_MS,
    maxSessions: options.maxSessions,
    log,
  });
  live.endpoint = endpoint;
  return {
    endpoint,
    store,
    rules,
    memory,
    breakpoints,
    events: events.emitter,
    recordFailures: recorder?.failures ?? { count: 0 },
    flush: async () => {
      await recorder?.flush();
    },
    async close() {
      breakpoints.releaseAll();
      await recorder?.flush();
      await endpoint.close();
      store?.close();
    },
  };
}

function upstreamOf(url: string, options: EndpointOptions): HttpUpstream {
  const limits = { callMs: options.upstreamTimeoutMs, totalMs: options.upstreamMaxTimeMs };
  return new HttpUpstream(url, options.upstreamHeaders, limits, options.upstreamAuth, options.upstreamDispatch);
}
