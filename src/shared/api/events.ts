import type { BreakpointsState } from '../breakpoints.js';
import type { SettingsInfo } from '../settings.js';
import type { CommandInput, CommandName } from './commands.js';
import type { CommandOutput } from './outputs.js';
import type { Annotation, AppServerRequest, InsightPatch, ProxyInfo, SourceInfo, TrafficEvent } from './records.js';

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

/** A command's answer as both transports carry it (Electron IPC's reply; a WebSocket ServerFrame adds its id). */
export type CallReply = { ok: true; output: unknown } | { ok: false; error: ApiError };

/** Wire format of the WebSocket bridge: the client sends `{ id, command, input }`, the shell answers with these. */
export type ServerFrame =
  | { id: number; ok: true; output: unknown }
  | { id: number; ok: false; error: ApiError }
  | { event: EventName; payload: unknown };
