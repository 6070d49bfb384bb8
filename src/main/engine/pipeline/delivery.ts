import type { IncomingMessage, ServerResponse } from 'node:http';
import type { JsonRpcMessage, JsonRpcResponse } from '../../../shared/jsonrpc.js';
import { sendJson, sseEvent } from '../http/sse.js';

/**
 * How an upstream answer reaches the client when the proxy changes something in it (a rule rewrote a result, or
 * the proxy answered some requests of the POST itself): message by message, re-serialised. Without rules the
 * relay pipes bytes instead (relay.ts), which is more faithful and cheaper.
 */
export class RewritingDelivery {
  private readonly sse: boolean;
  private readonly collected: JsonRpcMessage[] = [];

  constructor(
    private readonly res: ServerResponse,
    private readonly upRes: IncomingMessage,
    headers: Record<string, string | string[]>,
    private readonly batch: boolean,
    local: JsonRpcResponse[],
  ) {
    this.sse = (upRes.headers['content-type'] ?? '').includes('text/event-stream');
    if (this.sse) {
      const { 'content-length': _drop, ...rest } = headers;
      res.writeHead(upRes.statusCode ?? 200, rest);
      for (const answer of local) res.write(sseEvent(answer));
    } else {
      this.collected.push(...local);
    }
  }

  /** a message for the client, in upstream order */
  write(message: JsonRpcMessage): void {
    if (this.sse) this.res.write(sseEvent(message));
    else this.collected.push(message);
  }

  /** the upstream answer is complete; `raw` is its body, used as-is when it held no JSON-RPC message */
  end(raw: string, headers: Record<string, string | string[]>): void {
    if (this.sse) {
      this.res.end();
      return;
    }
    if (this.collected.length === 0) {
      // not JSON-RPC (an HTTP error page, a 202): pass it through unchanged
      this.res.writeHead(this.upRes.statusCode ?? 502, headers).end(raw);
      return;
    }
    const { 'content-length': _drop, 'content-type': _type, ...rest } = headers;
    sendJson(
      this.res,
      this.upRes.statusCode ?? 200,
      this.batch ? this.collected : this.collected[0],
      rest as Record<string, string>,
    );
  }
}
