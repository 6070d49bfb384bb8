/** How a call held at a breakpoint goes on (breakpoints.ts, reply-hold.ts). */
export type Resolution =
  /** `params`: a tools/call's edited arguments, or another method's edited params */
  | { action: 'resume'; params?: Record<string, unknown>; result?: Record<string, unknown> }
  | { action: 'fail'; message?: string }
  /** the client cancelled the call or went away while it was held: released at once, nothing more is sent for it */
  | { action: 'abandoned'; by: 'cancelled' | 'gone' };

export const ABANDONED = { cancelled: 'the client cancelled it', gone: 'the client went away' } as const;

/** the message of the JSON-RPC error a call failed at a breakpoint gets */
export const failedMessage = (message?: string): string =>
  `mcp-rewind: failed at a breakpoint: ${message?.trim() || 'failed by the user'}`;
