import { z } from 'zod';
import { MAX_BREAKPOINT_HOLD_S, MIN_BREAKPOINT_HOLD_S } from './breakpoints.js';

/** Settings of the app, kept as JSON in `<user data folder>/settings.json` (src/main/api/files/settings-file.ts). */
export const THEMES = ['system', 'light', 'dark'] as const;
export type Theme = (typeof THEMES)[number];
/** The desktop window's last normal (unmaximized) bounds, and whether it was maximized. */
export const WindowStateSchema = z.strictObject({
  x: z.number().int().min(-100_000).max(100_000),
  y: z.number().int().min(-100_000).max(100_000),
  width: z.number().int().min(100).max(100_000),
  height: z.number().int().min(100).max(100_000),
  maximized: z.boolean(),
});
export type WindowState = z.infer<typeof WindowStateSchema>;
/** The Timeline table's columns, in their default order (the renderer's column table defines each). */
export const TIMELINE_COLUMNS = [
  'seq',
  'time',
  'proxy',
  'method',
  'tool',
  'source',
  'status',
  'problems',
  'tokens',
  'duration',
  'size',
  'revision',
  'flags',
] as const;
export type TimelineColumnId = (typeof TIMELINE_COLUMNS)[number];
/**
 * The table's columns as the user left them: their order, the hidden ones, their widths (px, as dragged) and the sort.
 * Ids are plain strings, so that a file from another version (a column added or gone) still loads: the renderer keeps
 * the ids it knows and adds the ones missing.
 */
export const TimelineColumnsSchema = z.strictObject({
  order: z.array(z.string().min(1).max(40)).max(40),
  hidden: z.array(z.string().min(1).max(40)).max(40),
  widths: z.record(z.string().min(1).max(40), z.number().min(20).max(4000)),
  sort: z.strictObject({ column: z.string().min(1).max(40), desc: z.boolean() }).nullable(),
});
export type TimelineColumns = z.infer<typeof TimelineColumnsSchema>;
export const SettingsSchema = z.strictObject({
  theme: z.enum(THEMES),
  /** the cassette folder proposed for a new proxy */
  defaultCacheDir: z.string().trim().min(1).max(4096),
  /** how many exchanges the timeline keeps (applies at the next start) */
  trafficCapacity: z.number().int().min(1_000).max(1_000_000),
  /** the timeline follows new exchanges */
  autoScroll: z.boolean(),
  /** cassette folders opened lately, newest first (the one list: the Cassettes, Export and Settings views show it) */
  recentFolders: z.array(z.string().min(1).max(4096)).max(10),
  /** proxies (their configuration, rules and breakpoints) come back at the next start, running ones started again */
  restoreWorkspace: z.boolean(),
  /** the Timeline's split: the detail beside the table or below it, and the table's share of each (percent) */
  timelineLayout: z.strictObject({
    split: z.enum(['side', 'bottom']),
    side: z.number().min(10).max(90),
    bottom: z.number().min(10).max(90),
  }),
  /** seconds a call waits at a breakpoint before it resumes unchanged by itself (default 45: below clients' usual 60) */
  breakpointHoldS: z.number().int().min(MIN_BREAKPOINT_HOLD_S).max(MAX_BREAKPOINT_HOLD_S),
  /** the Timeline table's columns: order, hidden ones, widths, sort */
  timelineColumns: TimelineColumnsSchema,
  /** the Timeline hides the app's own traffic (its session's setup and the lists Compose asks for) */
  hideAppTraffic: z.boolean(),
  /** the timeline's exchanges are kept across restarts (within its byte cap), not only the pinned ones */
  preserveLog: z.boolean(),
  /**
   * the proxies bar above the traffic: the height its edge was dragged to (px; null: never dragged, the bar fits its
   * rows up to a limit) and whether it is collapsed to a summary line
   */
  proxiesBar: z.strictObject({ height: z.number().min(40).max(2000).nullable(), collapsed: z.boolean() }),
  /** `mcp-rewind mcp` (the MCP server for agents) offers its tools that send or write: resend_exchange, edit_and_resend */
  agentCanSend: z.boolean(),
  /** desktop app only */
  window: WindowStateSchema.optional(),
});
export type Settings = z.infer<typeof SettingsSchema>;
/** settings.set: any subset of the settings; `window: null` forgets the window state. */
export const SettingsPatchSchema = SettingsSchema.partial().extend({ window: WindowStateSchema.nullable().optional() });
export type SettingsPatch = z.input<typeof SettingsPatchSchema>;
/** What settings.get / settings.set answer, and the payload of the 'settings' event. */
export interface SettingsInfo {
  settings: Settings;
  /** the settings file */
  file: string;
  /** set when the file could not be read at start (defaults are used; the bad file is kept as settings.json.bad) */
  problem?: string;
}
