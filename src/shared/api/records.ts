import type { ProxyConfig } from '../proxy-config.js';
import type { ExchangeEvent } from '../traffic.js';
import type { SignInInfo } from '../sign-in.js';
import type { ExchangeInsight, Finding, ProblemCounts, Severity } from '../insight/findings.js';

/** The records the contract's commands and events carry: proxies, timeline exchanges, sources, cassette entries, files written. */
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
