import type { ReplayMiss } from '../../shared/cassette/miss.js';
import { MODE_TRAITS, type Mode } from '../../shared/modes.js';
import type { RepeatPolicy } from '../../shared/replay-repeat.js';
import { replaySpeed } from '../../shared/replay-timing.js';
import type { Overlay } from '../../shared/rules/schema.js';
import type { CassetteStore } from './cassette/store.js';
import { silent, type Log } from './log.js';
import { Breakpoints } from './pipeline/breakpoints/breakpoints.js';
import type { Hook } from './pipeline/core/contract.js';
import { EventHook } from './pipeline/core/events.js';
import type { Recorder } from './pipeline/record/recorder.js';
import type { Replayer } from './pipeline/replay/replayer.js';
import { RuleHook, type ToolsMemory } from './pipeline/core/rule-hook.js';
import { compileRedactions } from './redact.js';
import { RuleSet } from './rules/rule-set.js';
import type { LocalDispatch } from './upstream/http-upstream.js';
import type { UpstreamAuth } from './upstream/oauth/challenge.js';

// The mode's sources and hooks, shared by the HTTP endpoint (endpoint-factory.ts) and the stdio downstream
// (stdio-proxy.ts); kept apart from the HTTP endpoint so that the stdio path does not load its modules. The cassette,
// the replayer and the recorder are imported when the mode has them: a pass-through (proxy-only, --attach) loads none.

export interface EndpointOptions {
  mode: Mode;
  upstreamUrl?: string;
  /** a bridged upstream's in-process entry (upstream-bridge.ts): requests to upstreamUrl are answered there, no HTTP */
  upstreamDispatch?: LocalDispatch;
  /** extra headers sent upstream on every request (e.g. the upstream's own Authorization) */
  upstreamHeaders?: Record<string, string>;
  /** the upstream's OAuth sign-in (upstream/oauth/sign-in.ts): the proxy is its OAuth client */
  upstreamAuth?: UpstreamAuth;
  /** abort an upstream call after this long without an answer or a progress notification (progress restarts it) */
  upstreamTimeoutMs?: number;
  /** abort an upstream call after this long in all, progress or not */
  upstreamMaxTimeMs?: number;
  cacheDir?: string;
  clean?: boolean;
  resultHashPath?: string;
  resultHashIgnore?: string[];
  /** regular expressions whose matches are written as "[REDACTED]" everywhere in the cassette (--redact) */
  redact?: string[];
  /**
   * record, hybrid: the client's answer is released once its entry is on disk, fsynced (default true); false: the
   * answer goes out first and the entry is written after it (faster; an answered call can be lost in a crash)
   */
  durable?: boolean;
  /** replay: dot paths into params ignored when matching a request to an entry (e.g. arguments.timestamp) */
  matchIgnore?: string[];
  /** replay: after the recorded answers of a repeated request are used up: last (default), cycle or error */
  repeat?: RepeatPolicy;
  /** replay: how long replayed answers take (src/shared/replay-timing.ts): none (default), recorded, x<speed> */
  replayTiming?: string;
  /** replay: every miss is a JSON-RPC error naming the closest recorded key and what differs (--strict) */
  strict?: boolean;
  /** replay: told of every request the cassette had no answer for (with the closest recorded key; ping aside) */
  onMiss?: (miss: ReplayMiss) => void;
  rules?: { overlay: Overlay; instructions?: string };
  /** client sessions that sent nothing this long are ended, with their upstream session (default 10 min; 0: never) */
  sessionIdleMs?: number;
  /** client sessions held at once (default 10,000): beyond, the least recently used one is ended */
  maxSessions?: number;
  serverInfo?: { name: string; version: string };
  onLog?: Log;
  /** hooks of the caller's own, installed after the mode's and before the events (an attached proxy's switchable recorder) */
  extraHooks?: Hook[];
}

/** The pieces of a mode, before any downstream uses them: the cassette, the sources and the hooks, in order. */
export interface PipelineParts {
  store?: CassetteStore;
  replayer?: Replayer;
  recorder?: Recorder;
  rules?: RuleSet;
  ruleHook?: RuleHook;
  memory: ToolsMemory;
  breakpoints: Breakpoints;
  events: EventHook;
  /** in onResponse order: rules rewrite, a breakpoint holds, then what observes the final answer */
  hooks: Hook[];
}

/**
 * The sources and hooks of a mode — for the HTTP endpoint (createEndpoint) and the stdio downstream
 * (stdio-proxy.ts). The mode's traits (src/shared/modes.ts) say which are made: the replayer where it replays, the
 * recorder where it records; rules (when given), breakpoints and events come with every mode. `hasUpstream`: is a
 * live upstream there now (the rules ask; `serve` switches it).
 */
export async function createParts(options: EndpointOptions, hasUpstream: () => boolean): Promise<PipelineParts> {
  const log = options.onLog ?? silent;
  const { replays, records } = MODE_TRAITS[options.mode];
  const store = await openStore(options, log);
  const replayer = store && replays ? await replayerOf(store, options) : undefined;
  const recorder = store && records ? await recorderOf(store, options, log) : undefined;
  const rules = options.rules ? new RuleSet(options.rules.overlay, options.rules.instructions) : undefined;
  const memory: ToolsMemory = {};
  const breakpoints = new Breakpoints();
  const events = new EventHook();
  const ruleHook =
    rules &&
    new RuleHook(rules, memory, {
      hasSource: () => hasUpstream() || replayer !== undefined,
      recordedTools: () => {
        const tools = replayer?.peek('tools_list')?.result.tools;
        return Array.isArray(tools) ? (tools as Array<Record<string, unknown>>) : undefined;
      },
    });
  const hooks: Hook[] = [ruleHook, breakpoints, replayer, recorder, ...(options.extraHooks ?? []), events].filter(
    (h): h is NonNullable<typeof h> => h !== undefined,
  );
  return { store, replayer, recorder, rules, ruleHook, memory, breakpoints, events, hooks };
}

/** The cassette folder of a mode that replays or records (a `serve` replay session with rules alone has none). */
async function openStore(options: EndpointOptions, log: Log): Promise<CassetteStore | undefined> {
  const { replays, records } = MODE_TRAITS[options.mode];
  const usesCassette = (replays || records) && (options.cacheDir !== undefined || !replays || !options.rules);
  if (!usesCassette) return undefined;
  const { CassetteStore } = await import('./cassette/store.js');
  return CassetteStore.start(options.cacheDir ?? './cache', {
    clean: options.clean && !replays,
    create: records, // replay never creates a cassette: a missing one is refused (CassetteMissingError)
    log,
    loose: replays ? { ignore: options.matchIgnore ?? [] } : undefined,
    durable: options.durable,
  });
}

async function replayerOf(store: CassetteStore, options: EndpointOptions): Promise<Replayer> {
  const { Replayer } = await import('./pipeline/replay/replayer.js');
  return new Replayer(store, {
    repeat: options.repeat,
    matchIgnore: options.matchIgnore,
    speed: replaySpeed(options.replayTiming),
    strict: options.strict,
    onMiss: options.onMiss,
  });
}

async function recorderOf(store: CassetteStore, options: EndpointOptions, log: Log): Promise<Recorder> {
  const [{ buildResultHasher }, { Recorder }] = await Promise.all([
    import('./cassette/hash.js'),
    import('./pipeline/record/recorder.js'),
  ]);
  const hasher = buildResultHasher({ path: options.resultHashPath, ignore: options.resultHashIgnore });
  return new Recorder(store, hasher, compileRedactions(options.redact ?? []), log);
}
