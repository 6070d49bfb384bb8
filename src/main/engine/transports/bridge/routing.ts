import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JsonRpcId, JsonRpcNotification, JsonRpcRequest } from '../../../shared/jsonrpc.js';
import type { SessionStream } from './bridge-stream.js';

/**
 * One session of the upstream bridge, and where a server message goes back to. StreamableHTTPServerTransport.send()
 * routes a response by its id, but a notification or a server→client request goes to the POST stream of
 * `relatedRequestId` — without one, to the GET stream, where it is silently dropped if the client holds none open
 * (PROTOCOL-NOTES "SDK traps"). So every such message is tied to a downstream request still in flight, and the
 * others go to the session's GET stream, which the bridge owns (`stream`: held until the client opens it).
 */
export interface BridgeSession {
  id?: string;
  server: StreamableHTTPServerTransport;
  client: Transport;
  /** the GET stream: what the server sends outside any request */
  stream: SessionStream;
  /** downstream request ids awaiting their response, oldest first */
  inFlight: JsonRpcId[];
  /** progress token → the downstream request that carries it */
  tokens: Map<unknown, JsonRpcId>;
  closing: boolean;
  /** when the pipeline last sent anything on this session, and how many of its requests and streams are open */
  lastActive: number;
  open: number;
  close(reason?: string): Promise<void>;
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
  session: BridgeSession,
): JsonRpcId | undefined {
  if (SESSION_NOTIFICATIONS.has(message.method)) return undefined;
  const token =
    message.method === 'notifications/progress'
      ? (message.params as { progressToken?: unknown } | undefined)?.progressToken
      : undefined;
  return (token !== undefined ? session.tokens.get(token) : undefined) ?? session.inFlight[session.inFlight.length - 1];
}
