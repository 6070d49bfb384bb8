import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import {
  ErrorCode,
  errorResponse,
  isNotification,
  isRequest,
  isResponse,
  type JsonRpcId,
  type JsonRpcMessage,
  type JsonRpcResponse,
} from '../../../../shared/jsonrpc.js';
import type { Log } from '../../log.js';
import { emptyAnswer, sseAnswer, writeEvent, type BridgeAnswer } from './answer.js';
import { forget, relatedRequest, track, type InFlight } from './routing.js';
import { SessionStream } from './session-stream.js';

/** One POST's SSE answer, and how many of its requests are still unanswered (it ends when none is). */
interface PostAnswer {
  answer: BridgeAnswer;
  waiting: number;
}

/**
 * One MCP session of the bridge: the pipeline's messages go to its own connection to the real server (a stdio child,
 * a legacy SSE connection) as they are — ids, tokens and params untouched — and what the server sends comes back on
 * the answer of the POST it belongs to: a response by its id, a notification or server→client request with the
 * request it relates to (routing.ts), anything else on the session's GET stream, held until the client opens it.
 */
export class BridgeSession {
  id?: string;
  closing = false;
  /** when the pipeline last sent anything on this session, and how many of its answers are being read */
  lastActive = Date.now();
  open = 0;
  readonly stream: SessionStream;
  private readonly inFlight: InFlight = { ids: [], tokens: new Map() };
  /** the POST answer each request in flight goes back on */
  private readonly answers = new Map<JsonRpcId, PostAnswer>();

  constructor(
    readonly client: Transport,
    private readonly label: () => string,
    private readonly log: Log,
    private readonly ended: (session: BridgeSession) => void,
  ) {
    this.stream = new SessionStream(label, log);
    client.onmessage = (message) => this.fromServer(message as unknown as JsonRpcMessage);
  }

  /** requests unanswered or answers being read: not idle */
  get busy(): boolean {
    return this.open > 0 || this.inFlight.ids.length > 0;
  }

  /** One POST of the pipeline: its messages go to the server in order; its requests are answered on one SSE stream. */
  post(messages: JsonRpcMessage[]): BridgeAnswer {
    const requests = messages.filter(isRequest);
    if (requests.length === 0) {
      for (const message of messages) this.toServer(message);
      return emptyAnswer(202);
    }
    const answer = sseAnswer(this.id);
    const post: PostAnswer = { answer, waiting: requests.length };
    for (const request of requests) {
      track(this.inFlight, request);
      this.answers.set(request.id, post);
    }
    // its reader went away: what the server still sends for these requests has no stream to go to
    answer.once('close', () => {
      for (const { id } of requests) if (this.answers.get(id) === post) this.answers.delete(id);
    });
    for (const message of messages) this.toServer(message);
    return answer;
  }

  /** Ends the session; `reason`: the server went away, so what still waits is answered with an error. */
  async close(reason?: string): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    this.ended(this);
    for (const id of this.inFlight.ids.splice(0))
      if (reason)
        this.reply(
          id,
          errorResponse(
            id,
            ErrorCode.UpstreamUnavailable,
            `mcp-rewind: upstream ${this.label()} ${reason} before answering`,
          ),
        );
    for (const { answer } of this.answers.values()) if (answer.open) answer.end();
    this.answers.clear();
    this.stream.close();
    await this.client.close().catch(() => {});
  }

  /** pipeline → server */
  private toServer(message: JsonRpcMessage): void {
    if (isNotification(message) && message.method === 'notifications/cancelled') {
      // the server will not answer a cancelled request: its part of the POST stream ends here
      const id = message.params?.requestId as JsonRpcId | undefined;
      if (id !== undefined && forget(this.inFlight, id)) this.settle(id);
    }
    this.client.send(message as JSONRPCMessage).catch((error: Error) => {
      if (isRequest(message) && forget(this.inFlight, message.id))
        return this.reply(
          message.id,
          errorResponse(
            message.id,
            ErrorCode.UpstreamUnavailable,
            `mcp-rewind: upstream ${this.label()} unavailable: ${error.message}`,
          ),
        );
      const what = 'method' in message ? message.method : 'a reply';
      this.log(`upstream ${this.label()}: could not deliver ${what}: ${error.message}`, 'warn');
    });
  }

  /** server → pipeline */
  private fromServer(message: JsonRpcMessage): void {
    if (isResponse(message)) {
      if (message.id !== null) forget(this.inFlight, message.id);
      if (message.id === null || !this.reply(message.id, message))
        this.log(
          `upstream ${this.label()}: answer to request ${String(message.id)} not delivered: its stream closed`,
          'warn',
        );
      return;
    }
    const related = relatedRequest(message, this.inFlight);
    const post = related === undefined ? undefined : this.answers.get(related);
    // with no request to travel with (or its stream gone), the GET stream carries it: nothing the server says is lost
    if (!post || !writeEvent(post.answer, message as JSONRPCMessage)) this.stream.send(message as JSONRPCMessage);
  }

  /** The answer to a request, on its POST stream (which ends once all its requests are answered). */
  private reply(id: JsonRpcId, response: JsonRpcResponse): boolean {
    const post = this.answers.get(id);
    const sent = post !== undefined && writeEvent(post.answer, response as JSONRPCMessage);
    this.settle(id);
    return sent;
  }

  private settle(id: JsonRpcId): void {
    const post = this.answers.get(id);
    if (!post) return;
    this.answers.delete(id);
    if (--post.waiting === 0 && post.answer.open) post.answer.end();
  }
}
