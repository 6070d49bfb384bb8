import { z } from 'zod';
import { ConditionSchema, conditionText } from './conditions.js';
import { ErrorCode } from './jsonrpc.js';

/** Breakpoints on client requests: pause before the request goes upstream, or before the result reaches the client. */
export const BREAKPOINT_STAGES = ['request', 'response'] as const;
export type BreakpointStage = (typeof BREAKPOINT_STAGES)[number];

/**
 * How long a call stays held before it resumes unchanged by itself (the app's `breakpointHoldS` setting): below the
 * timeout most clients give up after — the MCP SDK's default request timeout, 60 s — so a forgotten hold does not
 * turn into the client's timeout.
 */
export const DEFAULT_BREAKPOINT_HOLD_S = 45;
export const MIN_BREAKPOINT_HOLD_S = 5;
export const MAX_BREAKPOINT_HOLD_S = 3600;
/** the MCP SDKs' default request timeout: what most clients wait before they give up (they do not say on the wire) */
export const USUAL_CLIENT_TIMEOUT_S = 60;

/** JSON-RPC error code of a call failed at a breakpoint */
export const BREAKPOINT_FAILED_CODE = ErrorCode.BreakpointFailed;

/** the method a breakpoint holds when it names none (breakpoints were tools/call only before) */
export const DEFAULT_BREAKPOINT_METHOD = 'tools/call';
/** the proxy id of breakpoints that apply in every proxy */
export const EVERY_PROXY = '*';

/**
 * Requests the server sends the client: a breakpoint on one holds the client's reply before it goes upstream (stage
 * 'response'), shown with the server's params; `*` does not reach them.
 */
export const SERVER_REQUEST_METHODS = ['sampling/createMessage', 'elicitation/create', 'roots/list'] as const;
export const isServerRequestMethod = (method: string | undefined): boolean =>
  (SERVER_REQUEST_METHODS as readonly string[]).includes(method ?? '');

const RuleFieldsSchema = z.strictObject({
  /**
   * the name the request is about, or '*' for any: the tool (tools/call), the prompt (prompts/get), the resource's URI
   * (resources/read, subscribe, unsubscribe); methods without a name match only '*'
   */
  tool: z.string().min(1).max(200),
  when: z.enum(BREAKPOINT_STAGES),
  /**
   * a client request method (`resources/read`, `prompts/get`…), or '*' for every one but initialize; default
   * tools/call; or a server→client request (SERVER_REQUEST_METHODS): its client's reply is held
   */
  method: z
    .string()
    .min(1)
    .max(200)
    .regex(/^(\*|[A-Za-z][\w/.-]*)$/, 'a method such as tools/call or resources/read, or * for every method')
    .refine((m) => m !== 'initialize', 'initialize cannot be held (the client needs it to start)')
    .optional(),
  /**
   * held only when the message matches (params at the request stage; params and result at the response stage; for a
   * server→client request, the server's params and the client's result)
   */
  condition: ConditionSchema.optional(),
});

export const BreakpointRuleInputSchema = RuleFieldsSchema.superRefine((rule, ctx) => {
  if (isServerRequestMethod(rule.method) && rule.when !== 'response')
    ctx.addIssue({
      code: 'custom',
      path: ['when'],
      message: `${rule.method} is a request of the server to the client: a breakpoint on it holds the client's reply, when: response`,
    });
  if (isServerRequestMethod(rule.method) && rule.tool !== '*')
    ctx.addIssue({ code: 'custom', path: ['tool'], message: `${rule.method} names nothing: tool must be *` });
});
export type BreakpointRuleInput = z.infer<typeof BreakpointRuleInputSchema>;

/** The rule as it is given (without its id): what is saved and sent to attached processes. */
export function breakpointInput(rule: BreakpointRuleInput & { id?: string }): BreakpointRuleInput {
  const { tool, when, method, condition } = rule;
  return {
    tool,
    when,
    ...(method && method !== DEFAULT_BREAKPOINT_METHOD ? { method } : {}),
    ...(condition ? { condition } : {}),
  };
}

/** two rules that hold the same calls at the same stage are one */
export const breakpointKey = (rule: BreakpointRuleInput): string => JSON.stringify(breakpointInput(rule));

/** `resources/read file:///a.txt`, `echo`, `every method`: which requests a breakpoint is on (its condition aside) */
export function breakpointTarget(rule: BreakpointRuleInput): string {
  const method = rule.method ?? DEFAULT_BREAKPOINT_METHOD;
  const name = rule.tool === '*' ? '' : ` ${rule.tool}`;
  if (method === '*') return `every method${name}`;
  if (isServerRequestMethod(method)) return `the client's reply to ${method}`;
  return method === DEFAULT_BREAKPOINT_METHOD && name ? rule.tool : `${method}${name}`;
}

/** `echo if params.arguments.text contains "x"`: what a breakpoint holds, as one line */
export function breakpointText(rule: BreakpointRuleInput): string {
  const what = breakpointTarget(rule);
  return rule.condition ? `${what} if ${conditionText(rule.condition)}` : what;
}

export interface BreakpointRule extends BreakpointRuleInput {
  id: string;
}

/** `CallToolResult`, `ReadResourceResult`…: a method's result type as the SDKs name it (messages) */
const RESULT_NAMES: Record<string, string> = {
  'tools/call': 'CallToolResult',
  'resources/read': 'ReadResourceResult',
  'prompts/get': 'GetPromptResult',
  'sampling/createMessage': 'CreateMessageResult',
  'elicitation/create': 'ElicitResult',
  'roots/list': 'ListRootsResult',
};
export const resultName = (method: string): string => RESULT_NAMES[method] ?? `${method} result`;

const JsonObjectSchema = z.record(z.string(), z.unknown());

/** A request held at a breakpoint, waiting for resume or fail (also what an attached process reports of its own). */
export const PausedCallSchema = z.object({
  id: z.string().max(200),
  /** the proxy it belongs to (set by the app, not by the engine) */
  proxyId: z.string().optional(),
  sessionId: z.string().optional(),
  /** the request's method (absent: tools/call, as before methods other than tools/call could be held) */
  method: z.string().optional(),
  /** the name it is about: the tool, the prompt, the resource URI ('' when the method has none) */
  tool: z.string(),
  /** the condition that held it (breakpointText of the rule) */
  matched: z.string().optional(),
  /** the request stage of a tools/call: `arguments`; of other methods: `params` */
  params: JsonObjectSchema.optional(),
  stage: z.enum(BREAKPOINT_STAGES),
  /** stage 'request': the call's arguments */
  arguments: JsonObjectSchema.optional(),
  /** stage 'response': the result about to reach the client (a reply: the client's result about to go upstream) */
  result: JsonObjectSchema.optional(),
  /** the client's reply to the server's request `method` (its `params` are the server's): it goes upstream next */
  reply: z.boolean().optional(),
  /** the revision the call is made in: its result is checked against that revision's schema */
  protocolVersion: z.string().optional(),
  /** epoch ms when it paused */
  since: z.number(),
  /** epoch ms when it resumes unchanged by itself */
  timeoutAt: z.number(),
});
export type PausedCall = z.infer<typeof PausedCallSchema>;

/** The arguments of a tools/call (or the params of another request) as edited at a breakpoint. */
export const ToolArgumentsSchema = z.record(z.string(), z.unknown());

/** What the UI sees: every proxy's breakpoints, and the calls paused now (oldest first). */
export interface BreakpointsState {
  /** per proxy id; EVERY_PROXY ('*'): the breakpoints that apply in every proxy */
  rules: Record<string, BreakpointRule[]>;
  paused: PausedCall[];
  /** how long a call is held before it resumes by itself, in seconds */
  holdS?: number;
}
