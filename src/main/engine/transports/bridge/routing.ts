import type { JsonRpcId, JsonRpcNotification, JsonRpcRequest } from '../../../../shared/jsonrpc.js';

/** What a bridge session knows of the requests it relays: which are in flight, which carry which progress token. */
export interface InFlight {
  /** downstream request ids awaiting their response, oldest first */
  readonly ids: JsonRpcId[];
  /** progress token → the downstream request that carries it */
  readonly tokens: Map<unknown, JsonRpcId>;
}

/**
 * Notifications about the session's state, never about one request: a Streamable HTTP server sends them on the GET
 * stream, and so does the bridge (tying them to whatever request is in flight would record them into its exchange).
 */
const SESSION_NOTIFICATIONS = new Set([
  'notifications/tools/list_changed',
  'notifications/prompts/list_changed',
  'notifications/resources/list_changed',
  'notifications/resources/updated',
]);

/**
 * The downstream request a server message travels with (its POST stream): the owner of its progress token, else
 * the most recent request still in flight; undefined (the GET stream) for session notifications or when idle.
 */
export function relatedRequest(
  message: JsonRpcRequest | JsonRpcNotification,
  inFlight: InFlight,
): JsonRpcId | undefined {
  if (SESSION_NOTIFICATIONS.has(message.method)) return undefined;
  const token =
    message.method === 'notifications/progress'
      ? (message.params as { progressToken?: unknown } | undefined)?.progressToken
      : undefined;
  return (token !== undefined ? inFlight.tokens.get(token) : undefined) ?? inFlight.ids[inFlight.ids.length - 1];
}

/** Notes a request as in flight (and the progress token it carries). */
export function track(inFlight: InFlight, request: JsonRpcRequest): void {
  inFlight.ids.push(request.id);
  const token = (request.params?._meta as { progressToken?: unknown } | undefined)?.progressToken;
  if (token !== undefined) inFlight.tokens.set(token, request.id);
}

/** A request answered or given up: no longer in flight, its progress token free. */
export function forget(inFlight: InFlight, id: JsonRpcId): boolean {
  const at = inFlight.ids.indexOf(id);
  if (at < 0) return false;
  inFlight.ids.splice(at, 1);
  for (const [token, owner] of inFlight.tokens) if (owner === id) inFlight.tokens.delete(token);
  return true;
}
