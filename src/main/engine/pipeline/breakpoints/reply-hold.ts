import type { BreakpointStage, PausedCall } from '../../../../shared/breakpoints.js';
import {
  isRequest,
  isResult,
  type JsonRpcId,
  type JsonRpcMessage,
  type JsonRpcRequest,
  type JsonRpcResponse,
  type JsonRpcResult,
} from '../../../../shared/jsonrpc.js';
import { BreakpointFailedError } from '../../errors.js';
import type { Closable } from '../core/contract.js';
import type { LiveExchange } from '../core/exchange.js';
import { failedMessage, type Resolution } from './pause-resolution.js';
import type { Session } from '../core/session.js';

/** What of the breakpoints a reply's hold uses (breakpoints.ts). */
export interface ReplyHolder {
  matches(request: JsonRpcRequest, stage: BreakpointStage, response?: JsonRpcResponse): string | undefined;
  pause(call: Omit<PausedCall, 'id' | 'since' | 'timeoutAt'>, res?: Closable): Promise<Resolution>;
  /** a server request seen on the session's GET stream, by id */
  takeAsked(session: Session, id: JsonRpcId): JsonRpcRequest | undefined;
}

/**
 * The server's request a client reply answers, and the exchange whose stream carried it (a request of the session
 * still in flight: the server asks while it works on it); else one the server sent on the GET stream (no exchange).
 */
function serverRequestOf(
  holder: ReplyHolder,
  session: Session,
  id: JsonRpcId,
): { request: JsonRpcRequest; exchange?: LiveExchange } | undefined {
  for (const exchange of session.inFlight.values()) {
    const request = exchange.stream.findLast((m): m is JsonRpcRequest => isRequest(m) && m.id === id);
    if (request) return { request, exchange };
  }
  const request = holder.takeAsked(session, id);
  return request && { request };
}

/**
 * Holds the client's replies of a POST that a breakpoint matches (`{ method, params }` of the server's request,
 * `result` of the reply) before they go upstream; edits and failures are made in the messages themselves, which the
 * exchange's stream shares (the recording keeps what the server got). True when a reply changed.
 */
export async function holdReplies(
  holder: ReplyHolder,
  messages: JsonRpcMessage[],
  session: Session,
  res: Closable,
): Promise<boolean> {
  const changed = await Promise.all(
    messages.map((m) => (isResult(m) ? holdReply(holder, m, session, res) : Promise.resolve(false))),
  );
  return changed.includes(true);
}

async function holdReply(holder: ReplyHolder, reply: JsonRpcResult, session: Session, res: Closable): Promise<boolean> {
  const asked = serverRequestOf(holder, session, reply.id);
  if (!asked) return false;
  const { request, exchange } = asked;
  const matched = holder.matches(request, 'response', reply);
  if (!matched) return false;
  const resolution = await holder.pause(
    {
      ...(session.id ? { sessionId: session.id } : {}),
      method: request.method,
      tool: '',
      matched,
      params: { ...request.params },
      stage: 'response',
      result: reply.result,
      reply: true,
      ...((exchange?.protocolVersion ?? session.protocolVersion)
        ? { protocolVersion: exchange?.protocolVersion ?? session.protocolVersion }
        : {}),
    },
    res,
  );
  const flags = exchange?.timeline.flags ?? []; // a reply on its own is no exchange: nothing to flag
  if (resolution.action === 'abandoned') {
    // the client's own reply goes on as it gave it: the server is not left waiting for it
    flags.push(`the reply to ${request.method} released at a breakpoint: the client went away`);
    return false;
  }
  if (resolution.action === 'fail') {
    const { error } = new BreakpointFailedError(failedMessage(resolution.message)).toResponse(reply.id);
    delete (reply as Partial<JsonRpcResult>).result;
    Object.assign(reply, { error });
    flags.push(`the reply to ${request.method} failed at a breakpoint`);
    return true;
  }
  if (!resolution.result) return false;
  reply.result = resolution.result;
  flags.push(`the reply to ${request.method} edited at a breakpoint`);
  return true;
}
