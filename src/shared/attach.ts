import { z } from 'zod';
import { PausedCallSchema, type BreakpointRuleInput } from './breakpoints.js';
import type { RulesFile } from './rules/schema.js';
import type { ExchangeEvent } from './traffic.js';

/**
 * Attach: an mcp-rewind that an agent started itself (`--stdio --attach`, a wrapped server) reports to the running
 * app through its API, and takes the app's rules, breakpoints and recording choice for that server. Data only.
 */

export const AttachIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9_-]{8,64}$/, 'an attach id (8 to 64 letters, digits, - or _)');

const ClientInfoSchema = z.strictObject({ name: z.string().max(200), version: z.string().max(200).optional() });

export const AttachOpenSchema = z.strictObject({
  attachId: AttachIdSchema,
  /** the server's name, `client:server` for a wrapped entry: the app keeps its rules and breakpoints under it */
  name: z.string().min(1).max(200),
  pid: z.number().int().min(1),
  /** what it runs in front of, for display (the upstream command or URL, without credentials) */
  upstream: z.string().max(4000),
  /** the MCP client, from its initialize */
  client: ClientInfoSchema.optional(),
  /** the folder its own args record to */
  record: z.string().max(4096).optional(),
});
export type AttachOpen = z.infer<typeof AttachOpenSchema>;

/** What the app tells an attached process; each field present is to be applied. */
export interface AttachControl {
  /** its rules (null: none) */
  rules?: RulesFile | null;
  breakpoints?: BreakpointRuleInput[];
  /** where to record: a folder, null for nowhere, undefined: as its own args say */
  record?: string | null;
  resume?: { id: string; arguments?: Record<string, unknown>; result?: Record<string, unknown> };
  fail?: { id: string; message?: string };
  /** the app forgot this server (removed it): go on as a plain pass-through */
  detach?: true;
}

/** The fields every exchange an attached process sends must have (the rest is checked by the engine that made it). */
const AttachedExchangeShape = z.looseObject({
  seq: z.number().int(),
  method: z.string().max(200),
  key: z.string().max(2000),
  source: z.enum(['upstream', 'cache', 'proxy']),
  cassette: z.enum(['recorded', 'skipped', 'hit', 'miss', 'none']),
  request: z.looseObject({}),
  stream: z.array(z.unknown()),
  startedAt: z.number(),
  durationMs: z.number(),
});

/**
 * An exchange as an attached process sends it: the engine's ExchangeEvent, its type and not a second description
 * of it; checked loosely (the shape above, the app numbers it), each problem named by its path.
 */
export const AttachedExchangeSchema = z.custom<ExchangeEvent>().superRefine((value, ctx) => {
  const checked = AttachedExchangeShape.safeParse(value);
  if (!checked.success)
    for (const issue of checked.error.issues)
      ctx.addIssue({ code: 'custom', message: issue.message, path: issue.path });
});

/** A tool as the Rules view lists it: the upstream's merged with the rules (its behavior, where it comes from). */
export const ToolViewSchema = z.object({
  name: z.string(),
  description: z.string().optional(),
  behavior: z.string(),
  origin: z.string(),
  inputSchema: z.record(z.string(), z.unknown()).optional(),
});
export type ToolView = z.infer<typeof ToolViewSchema>;

export const AttachUpdateSchema = z.strictObject({
  attachId: AttachIdSchema,
  client: ClientInfoSchema.optional(),
  /** its calls paused at a breakpoint now (all of them) */
  paused: z.array(PausedCallSchema).max(1000).optional(),
  /** its merged tool list (upstream + rules), for the Rules view */
  tools: z.array(ToolViewSchema).max(10_000).optional(),
  /** the folder it records to now (none: not recording) */
  recording: z.string().max(4096).nullable().optional(),
});
export type AttachUpdate = z.infer<typeof AttachUpdateSchema>;

export const attachCommands = {
  /** an attached process says hello (again, after a reconnect): answers its proxy in the app and what to apply */
  'attach.open': AttachOpenSchema,
  'attach.exchanges': z.strictObject({ attachId: AttachIdSchema, events: z.array(AttachedExchangeSchema).max(1000) }),
  'attach.update': AttachUpdateSchema,
  /** waits (up to POLL_MS) for what the app has to tell it */
  'attach.poll': z.strictObject({ attachId: AttachIdSchema }),
  'attach.close': z.strictObject({ attachId: AttachIdSchema }),
  /** the user's recording choice for an attached server: a folder, null (not recorded), or absent: as its args say */
  'attach.record': z.strictObject({
    proxyId: z.string().min(1),
    dir: z.string().min(1).max(4096).nullable().optional(),
  }),
} as const;

export interface AttachOutputs {
  'attach.open': { proxyId: string; control: AttachControl };
  'attach.exchanges': { accepted: number };
  'attach.update': { ok: true };
  'attach.poll': AttachControl[];
  'attach.close': { closed: true };
  'attach.record': { proxyId: string; record: string | null | undefined };
}

/** how long a poll waits for something to say before it answers [] */
export const POLL_MS = 20_000;
