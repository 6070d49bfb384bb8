import { z } from 'zod';
import { ProxyConfigSchema, type ProxyConfig } from './proxy-config.js';
import { RulesFileSchema } from './rules/schema.js';
import type { JsonRpcResponse } from './jsonrpc.js';
import type { ExchangeEvent } from './traffic.js';
import { BreakpointRuleInputSchema, type BreakpointsState } from './breakpoints.js';
import { SettingsPatchSchema, type SettingsInfo } from './settings.js';
import { AppSessionConfigSchema, RequestHeadersSchema, type AppSessionConfig } from './app-session.js';
import type { SignInInfo } from './sign-in.js';
import { attachCommands, type AttachOutputs } from './attach.js';
import { InterceptSelectionSchema, type InterceptList, type InterceptPlan, type InterceptResult } from './intercept.js';
import {
  SEVERITIES,
  type ExchangeInsight,
  type Finding,
  type ProblemCounts,
  type Severity,
} from './insight/findings.js';
import type { CostDiff, CostReport } from './insight/cost.js';

/**
 * The ONE contract between the UI and the engine. Every command is declared once here: its input as a zod schema
 * (validated at the boundary, on the engine side) and its output as a type. A single handler table in the main
 * process implements it (src/main/api/handlers.ts); Electron IPC and the WebSocket bridge of the browser shell are
 * two thin transports over that table. Events flow the other way.
 */

/** a proxy's configuration (its one schema, ProxyConfigSchema, and its wording: proxy-config.ts) */
export type { ProxyConfig };

/**
 * starting: checking its upstream (live modes: it must answer initialize) or its cassette (replay: it must exist);
 * running: it can serve; sign-in-required: it listens, but its upstream wants an OAuth sign-in first (`signIn`);
 * failed: it cannot (`error` says why, `failure` what failed); stopped: by the user.
 */
export const PROXY_STATES = ['starting', 'running', 'sign-in-required', 'stopped', 'failed'] as const;
export type ProxyState = (typeof PROXY_STATES)[number];
/** what made a proxy fail: its upstream (unreachable, not MCP, a command that does not start), its cassette, its port */
export type ProxyFailure = 'upstream' | 'cassette' | 'port' | 'other';

export interface ProxyInfo {
  id: string;
  name: string;
  config: ProxyConfig;
  state: ProxyState;
  /** the local MCP endpoint while running */
  url?: string;
  /** why it failed, in the words of the New proxy form ("Upstream URL …: connection refused") */
  error?: string;
  failure?: ProxyFailure;
  /** running, but its upstream stopped answering: the last forwarded call got this error (cleared by the next answer) */
  upstreamDown?: string;
  exchanges: number;
  /** what the insight checks found in its exchanges so far, by severity */
  problems?: ProblemCounts;
  /** the first-start demo's proxy (its upstream is the bundled demo server, started by Run demo) */
  demo?: boolean;
  /** its upstream's OAuth sign-in, when the proxy is the OAuth client of an upstream that asked for one */
  signIn?: SignInInfo;
  /**
   * a server an agent starts itself, wrapped by Intercept: its mcp-rewind processes attach to the app (running while
   * one is attached); `clients`: the MCP clients (from their initialize); `record`: the folder recorded to now
   */
  attached?: { processes: number; clients: string[]; record?: string };
}

/**
 * An exchange on the timeline: the engine's ExchangeEvent, tagged with the proxy that saw it (or the read-only source
 * it was opened from: a HAR file or a cassette). `seq` is the timeline's own number (#123), unique across proxies,
 * sources and restarts.
 */
export interface TrafficEvent extends ExchangeEvent {
  proxyId: string;
  /** sent by the app itself on its own session of the proxy (Resend, Edit & resend, Compose, or that session's setup) */
  sentBy?: SentBy;
  /** what the event weighs on the timeline (its JSON, about): the engine and the view cap their memory by it */
  bytes?: number;
  /**
   * parts cut to keep the timeline small (a payload over 256 kB became `{ "$truncated": { bytes, preview } }`, a long
   * stream kept its first messages), with their full sizes: `traffic.body` answers the full exchange while it is held
   */
  truncated?: { request?: number; response?: number; stream?: number; original?: number };
  /** the protocol checks' and security checks' findings, and the tokens it costs (arrives shortly after the exchange) */
  insight?: ExchangeInsight;
}

/** An exchange in one line, for lists (the MCP server's list_exchanges, traffic.query). */
export interface ExchangeSummary {
  seq: number;
  proxyId: string;
  sessionId?: string;
  method: string;
  tool?: string;
  /** ok, tool error, error <code>, pending */
  status: string;
  startedAt: number;
  durationMs: number;
  problems: number;
  worst?: Severity;
  tokens?: number;
}

/** The findings of the timeline's exchanges, newest first. */
export interface ProblemEntry {
  seq: number;
  proxyId: string;
  method: string;
  tool?: string;
  finding: Finding;
}

/** The new insight of exchanges already on the timeline (the `insight` event). */
export interface InsightPatch {
  proxyId: string;
  seq: number;
  insight: ExchangeInsight;
}

/** What the app sent, and from which exchange (`from`: its timeline number) for a resend. */
export interface SentBy {
  kind: 'resend' | 'edit' | 'compose' | 'app';
  from?: number;
}

/** A pin and a short note on an exchange (kept with the exchange across restarts). */
export interface Annotation {
  pinned: boolean;
  note?: string;
}

/** A file or folder opened into the timeline as a read-only source of exchanges. */
export interface SourceInfo {
  id: string;
  name: string;
  kind: 'har' | 'folder' | 'file';
  path: string;
  exchanges: number;
  /** what could not be read as an MCP exchange, with why (first few) */
  skipped: string[];
}

/** A server→client request made to the app's own session (during a Resend or Compose), waiting for the user. */
export interface AppServerRequest {
  id: string;
  proxyId: string;
  method: string;
  params: Record<string, unknown>;
  /** epoch ms */
  since: number;
  /** epoch ms when it is refused by itself */
  timeoutAt: number;
}

/** What the proxy offers a client: its merged tool list, prompts, resources and resource templates. */
export interface ProxyCatalog {
  tools: Array<{ name: string; title?: string; description?: string; inputSchema?: Record<string, unknown> }>;
  prompts: Array<{
    name: string;
    title?: string;
    description?: string;
    arguments?: Array<{ name: string; description?: string; required?: boolean }>;
  }>;
  resources: Array<{ uri: string; name?: string; description?: string; mimeType?: string }>;
  resourceTemplates: Array<{ uriTemplate: string; name?: string; description?: string; mimeType?: string }>;
  /** lists the server does not offer or that failed ("prompts: not offered by the server") */
  problems: string[];
}

/** One distilled entry of a cassette folder, for the Cassettes view. */
export interface CassetteEntrySummary {
  file: string;
  n: number;
  key: string;
  method?: string;
  tool?: string;
  arguments?: unknown;
  /** first text of the result, cut short */
  preview: string;
  recordedAt?: string;
  /** times the running proxies served it since they started */
  hits: number;
}

const Id = z.strictObject({ id: z.string().min(1) });
const CassetteFile = z.strictObject({ dir: z.string().min(1), file: z.string().min(1) });

/**
 * Export of a cassette folder for CI: 'folder' = a copy holding only the replay files (`<n> <key>.json`), 'file' = a
 * single-file cassette, 'har' = HAR 1.2. `out` is absolute or relative to the user's working directory, never inside
 * the source folder; an existing non-empty folder (or file) is replaced only with `overwrite: true`.
 */
const ExportInput = z.strictObject({
  dir: z.string().min(1),
  format: z.enum(['folder', 'file', 'har']),
  out: z.string().min(1),
  overwrite: z.boolean().optional(),
});
export type ExportFormat = z.infer<typeof ExportInput>['format'];

export interface ExportPreview {
  /** the resolved output path */
  out: string;
  files: Array<{ path: string; bytes: number }>;
  /** the exact CLI command that replays the export in CI (for HAR, which does not replay: the command that writes it) */
  command: string;
  /** values written as "[REDACTED]" */
  redacted: number;
  /** distilled files left out (not valid JSON) */
  skipped: string[];
}
export interface ExportResult {
  out: string;
  written: string[];
  command: string;
  redacted: number;
  skipped: string[];
}

/** Saving timeline exchanges to a file or folder: HAR 1.2, a cassette folder, or a single-file cassette. */
export const SAVE_FORMATS = ['har', 'folder', 'file'] as const;
export interface SaveResult {
  out: string;
  written: string[];
  /** exchanges saved */
  exchanges: number;
  /** exchanges left out, with why (errors are not replayed; held or unanswered calls) */
  skipped: string[];
  redacted: number;
}

/**
 * What the context-cost commands measure: one MCP session of the timeline, a proxy's (or an opened file's) exchanges,
 * or a cassette folder, single-file cassette or HAR file on disk.
 */
const CostScope = z.union([
  z.strictObject({ proxyId: z.string().min(1), sessionId: z.string().min(1).optional() }),
  z.strictObject({ path: z.string().min(1).max(4096) }),
]);
export type CostScopeInput = z.input<typeof CostScope>;

/** how long a Clear of the timeline can be undone */
export const UNDO_CLEAR_MS = 10_000;

export const commands = {
  'app.info': z.strictObject({}),
  'proxies.list': z.strictObject({}),
  /** creates and starts a proxy */
  'proxies.create': ProxyConfigSchema,
  /** starts a stopped proxy, or tries a failed one again */
  'proxies.start': Id,
  'proxies.stop': Id,
  'proxies.remove': Id,
  /** starts (or joins) the sign-in of a proxy's upstream: the page to open comes back at once, the state follows */
  'proxies.signIn': Id,
  /** forgets the tokens of a proxy's upstream (its next request asks for a sign-in again) */
  'proxies.signOut': Id,
  /** the newest exchanges (all, or `limit`); `proxyId`: only those of one proxy or opened file */
  'traffic.snapshot': z.strictObject({
    limit: z.number().int().min(1).max(1_000_000).optional(),
    proxyId: z.string().min(1).max(200).optional(),
  }),
  /** an exchange whose bodies the timeline truncated, in full, while the engine still holds it */
  'traffic.body': z.strictObject({ proxyId: z.string().min(1), seq: z.number().int() }),
  /** puts back what the last traffic.clear removed (its `undo` token; kept for UNDO_CLEAR_MS, until the next clear) */
  'traffic.undoClear': z.strictObject({ undo: z.string().min(1) }),
  /** every exchange; or one proxy's; or the ones listed (what the Timeline shows under a filter) */
  'traffic.clear': z.strictObject({
    proxyId: z.string().min(1).optional(),
    items: z
      .array(z.strictObject({ proxyId: z.string().min(1), seq: z.number().int() }))
      .max(1_000_000)
      .optional(),
  }),
  'rules.get': Id,
  'rules.set': z.strictObject({ id: z.string().min(1), rules: RulesFileSchema }),
  'rules.preview': z.strictObject({
    template: z.string(),
    result: z.record(z.string(), z.unknown()),
    args: z.record(z.string(), z.unknown()).optional(),
  }),
  /** `remember`: the user opened it, so it goes first in the settings' recent folders */
  'cassettes.list': z.strictObject({ dir: z.string().min(1), remember: z.boolean().optional() }),
  'cassettes.read': CassetteFile,
  'cassettes.write': z.strictObject({ dir: z.string().min(1), file: z.string().min(1), text: z.string() }),
  'cassettes.delete': CassetteFile,
  'cassettes.duplicate': CassetteFile,
  /** gives an entry a new key, keeping its sequence number (the key is made file-name safe; a taken name is refused) */
  'cassettes.rename': z.strictObject({ dir: z.string().min(1), file: z.string().min(1), key: z.string().min(1) }),
  /** what an export would write (nothing is written) */
  'export.preview': ExportInput,
  'export.run': ExportInput,
  /** a demo MCP server, a recording proxy in front of it, and a scripted agent run through it */
  'demo.start': z.strictObject({}),
  /** every proxy's breakpoints and the calls paused now */
  'breakpoints.list': z.strictObject({}),
  /** replaces a proxy's breakpoints, or those of every proxy (`proxyId` '*'), kept across restarts */
  'breakpoints.set': z.strictObject({ proxyId: z.string().min(1), rules: z.array(BreakpointRuleInputSchema).max(200) }),
  /**
   * continues a paused call; `arguments` (a tools/call's request stage), `params` (another method's request stage) or
   * `result` (response stage, checked against the method's result schema) replace the call's
   */
  'breakpoints.resume': z.strictObject({
    id: z.string().min(1),
    arguments: z.record(z.string(), z.unknown()).optional(),
    params: z.record(z.string(), z.unknown()).optional(),
    result: z.record(z.string(), z.unknown()).optional(),
  }),
  /** answers a paused call with a JSON-RPC error (-32006 "mcp-rewind: failed at a breakpoint: <message>") */
  'breakpoints.fail': z.strictObject({ id: z.string().min(1), message: z.string().max(2000).optional() }),
  'settings.get': z.strictObject({}),
  /** partial update: only the fields given change */
  'settings.set': SettingsPatchSchema,
  /**
   * Sends a request through a running proxy's full pipeline (rules, breakpoints, recording, cassette) on the app's own
   * MCP session of that proxy, with a fresh id: Resend (`from`: the original's timeline number), Edit & resend, Compose.
   * Answers the new exchange's timeline number and the response.
   */
  'exchange.send': z.strictObject({
    proxyId: z.string().min(1),
    method: z
      .string()
      .min(1)
      .max(200)
      .refine(
        (m) => m !== 'initialize' && !m.startsWith('notifications/'),
        'send a request (not initialize, not a notification)',
      ),
    params: z.record(z.string(), z.unknown()).optional(),
    kind: z.enum(['resend', 'edit', 'compose']),
    from: z.number().int().optional(),
    /** extra HTTP headers on this request's POST (Authorization, tracing…); what the transport sets is refused */
    headers: RequestHeadersSchema.optional(),
  }),
  /** what the app's own sessions declare at initialize (capabilities, roots) */
  'appSession.get': z.strictObject({}),
  /** changes it; the app's sessions are opened again with it at their next call */
  'appSession.set': AppSessionConfigSchema,
  /** the proxy's tools (merged with its rules), prompts, resources and templates, listed through the app's session */
  'exchange.catalog': z.strictObject({ proxyId: z.string().min(1) }),
  /** checks a value against a JSON Schema (ajv): each problem with its path */
  'schema.check': z.strictObject({ schema: z.record(z.string(), z.unknown()), value: z.unknown() }),
  /** answers a server→client request made to the app's session: `result`, or refuses with `error` */
  'appRequests.answer': z.strictObject({
    id: z.string().min(1),
    result: z.record(z.string(), z.unknown()).optional(),
    error: z.string().max(2000).optional(),
  }),
  'appRequests.list': z.strictObject({}),
  'traffic.annotations': z.strictObject({}),
  /** pins or unpins an exchange and sets its note (an empty note removes it) */
  'traffic.annotate': z.strictObject({
    seq: z.number().int(),
    pinned: z.boolean().optional(),
    note: z.string().max(500).optional(),
  }),
  /** the exchanges given (timeline numbers; all when absent) as HAR, a cassette folder or a single-file cassette, secrets redacted */
  'traffic.save': z.strictObject({
    format: z.enum(SAVE_FORMATS),
    out: z.string().min(1),
    overwrite: z.boolean().optional(),
    seqs: z.array(z.number().int()).max(1_000_000).optional(),
  }),
  /** opens a HAR file, a single-file cassette or a cassette folder into the timeline, read-only */
  'sources.open': z.strictObject({ path: z.string().min(1).max(4096) }),
  'sources.close': Id,
  'sources.list': z.strictObject({}),
  /** the recorded answers of a key in a proxy's cassette (to compare an exchange with what the cassette holds) */
  'cassettes.lookup': z.strictObject({ proxyId: z.string().min(1), key: z.string().min(1) }),
  /** the MCP clients found on this machine, their config files and servers, and which go through mcp-rewind */
  'intercept.list': z.strictObject({}),
  /** what a wrap or unwrap would write (each file before and after; nothing is written), or of `all` (every change undone) */
  'intercept.plan': z.union([InterceptSelectionSchema, z.strictObject({ all: z.literal(true) })]),
  /** writes a plan as it was shown; a file changed since it was read is not written (said in `skipped`) */
  'intercept.apply': z.strictObject({ planId: z.string().min(1) }),
  ...attachCommands,
  /**
   * The timeline's exchanges in one line each, newest first: `query` is the search box's text (free text, and
   * `has:problem`), the other fields the filter menus; `before`: a timeline number, for the next page.
   */
  'traffic.query': z.strictObject({
    query: z.string().max(2000).optional(),
    proxyId: z.string().min(1).optional(),
    method: z.string().min(1).max(200).optional(),
    tool: z.string().min(1).max(200).optional(),
    limit: z.number().int().min(1).max(500).optional(),
    before: z.number().int().optional(),
  }),
  /** one exchange by its timeline number, in full while the engine holds it */
  'traffic.exchange': z.strictObject({ seq: z.number().int() }),
  /** the insight checks' findings over the timeline, newest first */
  'insight.problems': z.strictObject({
    proxyId: z.string().min(1).optional(),
    severity: z.enum(SEVERITIES).optional(),
    limit: z.number().int().min(1).max(1000).optional(),
  }),
  /** what a recording costs in tokens: lists before the first call, the largest descriptions, results */
  'insight.cost': CostScope,
  /** the cost of recording B against recording A */
  'insight.costDiff': z.strictObject({ a: CostScope, b: CostScope }),
} as const;

export type CommandName = keyof typeof commands;
export type CommandInput<C extends CommandName> = z.input<(typeof commands)[C]>;

export interface CommandOutputs extends AttachOutputs {
  /** trafficCapacity: the exchanges the timeline keeps in this run (the setting as it was at start) */
  'app.info': {
    version: string;
    shell: 'electron' | 'browser';
    platform: string;
    trafficCapacity: number;
    trafficBytes?: number;
  };
  'proxies.list': ProxyInfo[];
  'proxies.create': ProxyInfo;
  'proxies.start': ProxyInfo;
  'proxies.stop': ProxyInfo;
  'proxies.remove': { removed: true };
  /** `opened`: the engine opened the page itself (the desktop app); otherwise the UI opens `url` */
  'proxies.signIn': { url: string; opened: boolean };
  'proxies.signOut': ProxyInfo;
  'traffic.snapshot': TrafficEvent[];
  /** `held: false`: the full bodies were let go (the engine keeps the newest few dozen MB of them) */
  'traffic.body': { held: true; event: TrafficEvent } | { held: false; reason: string };
  /** `undo`: a token for traffic.undoClear, valid for UNDO_CLEAR_MS */
  'traffic.clear': { cleared: number; undo?: string };
  'traffic.undoClear': { restored: number };
  'rules.get': {
    rules: z.infer<typeof RulesFileSchema> | null;
    tools: Array<{
      name: string;
      description?: string;
      behavior: string;
      origin: string;
      inputSchema?: Record<string, unknown>;
    }>;
  };
  'rules.set': {
    rules: z.infer<typeof RulesFileSchema>;
    tools: Array<{
      name: string;
      description?: string;
      behavior: string;
      origin: string;
      inputSchema?: Record<string, unknown>;
    }>;
    notified: number;
  };
  'rules.preview': { text: string };
  'cassettes.list': { dir: string; entries: CassetteEntrySummary[] };
  'cassettes.read': { text: string };
  'cassettes.write': { entry: CassetteEntrySummary };
  'cassettes.delete': { deleted: string };
  'cassettes.duplicate': { entry: CassetteEntrySummary };
  'cassettes.rename': { entry: CassetteEntrySummary; renamed: string };
  'export.preview': ExportPreview;
  'export.run': ExportResult;
  'demo.start': { proxy: ProxyInfo; upstreamUrl: string };
  'breakpoints.list': BreakpointsState;
  'breakpoints.set': BreakpointsState;
  'breakpoints.resume': BreakpointsState;
  'breakpoints.fail': BreakpointsState;
  'settings.get': SettingsInfo;
  'settings.set': SettingsInfo;
  /** `seq`: the new exchange's timeline number (absent if the exchange never reached the timeline) */
  'exchange.send': { seq?: number; response: JsonRpcResponse };
  'exchange.catalog': ProxyCatalog;
  'appSession.get': AppSessionConfig;
  'appSession.set': AppSessionConfig;
  'schema.check': { problems: Array<{ path: string; message: string }> };
  'appRequests.answer': AppServerRequest[];
  'appRequests.list': AppServerRequest[];
  'traffic.annotations': Record<number, Annotation>;
  'traffic.annotate': Record<number, Annotation>;
  'traffic.save': SaveResult;
  'sources.open': SourceInfo;
  'sources.close': { closed: true };
  'sources.list': SourceInfo[];
  'cassettes.lookup': {
    dir: string;
    entries: Array<{
      file: string;
      n: number;
      result: Record<string, unknown>;
      stream?: Array<Record<string, unknown>>;
      recordedAt?: string;
    }>;
  };
  'intercept.list': InterceptList;
  'intercept.plan': InterceptPlan & { planId: string };
  'intercept.apply': InterceptResult;
  /** `next`: the `before` of the next page; `total`: the exchanges that match */
  'traffic.query': { items: ExchangeSummary[]; next?: number; total: number };
  /** `full: false`: its large bodies are truncated (the engine let the full version go) */
  'traffic.exchange': { event: TrafficEvent; full: boolean };
  'insight.problems': ProblemEntry[];
  'insight.cost': CostReport;
  'insight.costDiff': CostDiff;
}
export type CommandOutput<C extends CommandName> = CommandOutputs[C];

/** Events from the engine to every connected UI. */
export interface EventPayloads {
  traffic: TrafficEvent;
  proxies: ProxyInfo[];
  /** breakpoints or paused calls changed (the whole state) */
  breakpoints: BreakpointsState;
  settings: SettingsInfo;
  /** pins and notes changed (all of them) */
  annotations: Record<number, Annotation>;
  /** read-only sources opened or closed (all of them) */
  sources: SourceInfo[];
  /** server→client requests to the app's session waiting for the user (all of them) */
  appRequests: AppServerRequest[];
  /** the insight checks finished these exchanges (they reached the timeline a moment before) */
  insight: InsightPatch[];
}
export type EventName = keyof EventPayloads;
/** Every event, for the shells that forward them all (a name missing here fails to compile) */
const EVENT_SET: Record<EventName, true> = {
  traffic: true,
  proxies: true,
  breakpoints: true,
  settings: true,
  annotations: true,
  sources: true,
  appRequests: true,
  insight: true,
};
export const EVENT_NAMES = Object.keys(EVENT_SET) as EventName[];

/** The API as the UI sees it, whatever the transport. */
export interface RewindApi {
  call<C extends CommandName>(command: C, input: CommandInput<C>): Promise<CommandOutput<C>>;
  on<E extends EventName>(event: E, listener: (payload: EventPayloads[E]) => void): () => void;
}

/** What a failed command answers with: a message that names the bad field, or what went wrong. */
export interface ApiError {
  message: string;
}

/** Wire format of the WebSocket bridge (and of Electron IPC payloads). */
export type ClientFrame = { id: number; command: string; input: unknown };
export type ServerFrame =
  | { id: number; ok: true; output: unknown }
  | { id: number; ok: false; error: ApiError }
  | { event: EventName; payload: unknown };
