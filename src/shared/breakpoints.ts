import { z } from 'zod';
import { ErrorCode } from './jsonrpc.js';

/** Breakpoints on tools/call: pause before the request goes upstream, or before the result reaches the client. */
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

export const BreakpointRuleInputSchema = z.strictObject({
  /** exact tool name, or '*' for every tool */
  tool: z.string().min(1).max(200),
  when: z.enum(BREAKPOINT_STAGES),
});
export type BreakpointRuleInput = z.infer<typeof BreakpointRuleInputSchema>;

export interface BreakpointRule extends BreakpointRuleInput {
  id: string;
}

/** A tools/call held at a breakpoint, waiting for resume or fail. */
export interface PausedCall {
  id: string;
  /** the proxy it belongs to (set by the app, not by the engine) */
  proxyId?: string;
  sessionId?: string;
  tool: string;
  stage: BreakpointStage;
  /** stage 'request': the call's arguments */
  arguments?: Record<string, unknown>;
  /** stage 'response': the result about to reach the client */
  result?: Record<string, unknown>;
  /** the revision the call is made in: its result is checked against that revision's schema */
  protocolVersion?: string;
  /** epoch ms when it paused */
  since: number;
  /** epoch ms when it resumes unchanged by itself */
  timeoutAt: number;
}

/** The arguments of a tools/call as edited at a breakpoint. */
export const ToolArgumentsSchema = z.record(z.string(), z.unknown());

/** What the UI sees: every proxy's breakpoints, and the calls paused now (oldest first). */
export interface BreakpointsState {
  rules: Record<string, BreakpointRule[]>;
  paused: PausedCall[];
  /** how long a call is held before it resumes by itself, in seconds */
  holdS?: number;
}
