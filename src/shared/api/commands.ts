import { z } from 'zod';
import { ProxyConfigSchema } from '../proxy-config.js';
import { RulesFileSchema } from '../rules/schema.js';
import { BreakpointRuleInputSchema } from '../breakpoints.js';
import { SettingsPatchSchema } from '../settings.js';
import { AppSessionConfigSchema, RequestHeadersSchema } from '../app-session.js';
import { attachCommands } from '../attach.js';
import { InterceptFolderSchema, InterceptSelectionSchema } from '../intercept.js';
import { SEVERITIES } from '../insight/findings.js';
import { SAVE_FORMATS } from './records.js';

/** Every command's input, as the zod schema the engine validates it with at the boundary. */

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

/**
 * What the context-cost commands measure: one MCP session of the timeline, a proxy's (or an opened file's) exchanges,
 * or a cassette folder, single-file cassette or HAR file on disk.
 */
const CostScope = z.union([
  z.strictObject({ proxyId: z.string().min(1), sessionId: z.string().min(1).optional() }),
  z.strictObject({ path: z.string().min(1).max(4096) }),
]);
export type CostScopeInput = z.input<typeof CostScope>;

/** traffic.snapshot refuses an answer heavier than this (the events' own `bytes`): traffic.page reads any size */
export const SNAPSHOT_MAX_BYTES = 32 * 1024 * 1024;
/** one traffic.page answer: at most this many exchanges, within these bytes (one at least) */
export const TRAFFIC_PAGE_EVENTS = 2_000;
export const TRAFFIC_PAGE_BYTES = 1024 * 1024;

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
  /**
   * the newest exchanges (all, or `limit`); `proxyId`: only those of one proxy or opened file. In one answer, so refused
   * over SNAPSHOT_MAX_BYTES (use traffic.page)
   */
  'traffic.snapshot': z.strictObject({
    limit: z.number().int().min(1).max(1_000_000).optional(),
    proxyId: z.string().min(1).max(200).optional(),
  }),
  /**
   * the exchanges a page at a time, oldest first (what a UI loads the timeline with): `after` is the previous page's
   * `next` (absent: from the oldest); the last page has no `next`
   */
  'traffic.page': z.strictObject({
    after: z.number().int().min(-1).optional(),
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
  /** adds a folder to look in (a project or another home; it must exist and be a folder), kept; answers the list */
  'intercept.addFolder': InterceptFolderSchema,
  /** stops looking in a folder added before; answers the list */
  'intercept.removeFolder': z.strictObject({ path: z.string().min(1).max(4096) }),
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
