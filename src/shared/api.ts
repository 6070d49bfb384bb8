import { z } from 'zod';
import { MODES } from './modes.js';
import { RulesFileSchema } from './rules/schema.js';
import type { ExchangeEvent } from './traffic.js';

/**
 * The ONE contract between the UI and the engine. Every command is declared once here: its input as a zod schema
 * (validated at the boundary, on the engine side) and its output as a type. A single handler table in the main
 * process implements it (src/main/api/handlers.ts); Electron IPC and the WebSocket bridge of the browser shell are
 * two thin transports over that table. Events flow the other way.
 */

export const ProxyConfigSchema = z.strictObject({
  name: z.string().min(1).max(100).optional(),
  mode: z.enum(MODES),
  /** upstream MCP server (Streamable HTTP); required unless mode is replay */
  upstreamUrl: z.url({ protocol: /^https?$/ }).optional(),
  /** cassette folder; unused in proxy-only */
  cacheDir: z.string().min(1).optional(),
  port: z.number().int().min(0).max(65535).default(0),
  rules: RulesFileSchema.optional(),
});
export type ProxyConfig = z.infer<typeof ProxyConfigSchema>;

export interface ProxyInfo {
  id: string;
  name: string;
  config: ProxyConfig;
  state: 'running' | 'stopped' | 'failed';
  /** the local MCP endpoint while running */
  url?: string;
  error?: string;
  exchanges: number;
}

/** An exchange on the timeline: the engine's ExchangeEvent, tagged with the proxy that saw it. */
export interface TrafficEvent extends ExchangeEvent {
  proxyId: string;
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

export const commands = {
  'app.info': z.strictObject({}),
  'proxies.list': z.strictObject({}),
  /** creates and starts a proxy */
  'proxies.create': ProxyConfigSchema,
  'proxies.start': Id,
  'proxies.stop': Id,
  'proxies.remove': Id,
  'traffic.snapshot': z.strictObject({ limit: z.number().int().min(1).max(1_000_000).optional() }),
  'traffic.clear': z.strictObject({}),
  'rules.get': Id,
  'rules.set': z.strictObject({ id: z.string().min(1), rules: RulesFileSchema }),
  'rules.preview': z.strictObject({ template: z.string(), result: z.record(z.string(), z.unknown()), args: z.record(z.string(), z.unknown()).optional() }),
  'cassettes.list': z.strictObject({ dir: z.string().min(1) }),
  'cassettes.read': CassetteFile,
  'cassettes.write': z.strictObject({ dir: z.string().min(1), file: z.string().min(1), text: z.string() }),
  'cassettes.delete': CassetteFile,
  'cassettes.duplicate': CassetteFile,
  /** a demo MCP server, a recording proxy in front of it, and a scripted agent run through it */
  'demo.start': z.strictObject({}),
} as const;

export type CommandName = keyof typeof commands;
export type CommandInput<C extends CommandName> = z.input<(typeof commands)[C]>;

export interface CommandOutputs {
  'app.info': { version: string; shell: 'electron' | 'browser'; platform: string };
  'proxies.list': ProxyInfo[];
  'proxies.create': ProxyInfo;
  'proxies.start': ProxyInfo;
  'proxies.stop': ProxyInfo;
  'proxies.remove': { removed: true };
  'traffic.snapshot': TrafficEvent[];
  'traffic.clear': { cleared: number };
  'rules.get': { rules: z.infer<typeof RulesFileSchema> | null; tools: Array<{ name: string; description?: string; behavior: string; origin: string }> };
  'rules.set': { rules: z.infer<typeof RulesFileSchema>; tools: Array<{ name: string; description?: string; behavior: string; origin: string }>; notified: number };
  'rules.preview': { text: string };
  'cassettes.list': { dir: string; entries: CassetteEntrySummary[] };
  'cassettes.read': { text: string };
  'cassettes.write': { entry: CassetteEntrySummary };
  'cassettes.delete': { deleted: string };
  'cassettes.duplicate': { entry: CassetteEntrySummary };
  'demo.start': { proxy: ProxyInfo; upstreamUrl: string };
}
export type CommandOutput<C extends CommandName> = CommandOutputs[C];

/** Events from the engine to every connected UI. */
export interface EventPayloads {
  traffic: TrafficEvent;
  proxies: ProxyInfo[];
}
export type EventName = keyof EventPayloads;

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
