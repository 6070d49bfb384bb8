import type { IncomingMessage, ServerResponse } from 'node:http';
import type { JsonRpcMessage, JsonRpcResponse } from '../../../../shared/jsonrpc.js';
import { sendJson, sseEvent } from '../../http/sse.js';

/**
 * How an upstream answer reaches the client when the proxy changes something in it (a rule rewrote a result, or
 * the proxy answered some requests of the POST itself): message by message, re-serialised. Without rules the
 * relay pipes bytes instead (relay.ts), which is more faithful and cheaper.
 */
export class RewritingDelivery {
  private readonly sse: boolean;
  /** a JSON body of newline-delimited messages: each goes out on its line as it comes */
  private jsonLines = false;
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

  /** The JSON body turned out to be newline-delimited messages: what was collected goes, the rest as it comes. */
  lines(headers: Record<string, string | string[]>): void {
    if (this.sse || this.jsonLines) return;
    this.jsonLines = true;
    const { 'content-length': _drop, ...rest } = headers;
    this.res.writeHead(this.upRes.statusCode ?? 200, rest);
    for (const message of this.collected.splice(0)) this.write(message);
  }

  /** a message for the client, in upstream order */
  write(message: JsonRpcMessage): void {
    if (this.sse) this.res.write(sseEvent(message));
    else if (this.jsonLines) this.res.write(`${JSON.stringify(message)}\n`);
    else this.collected.push(message);
  }

  /** the upstream answer is complete; `raw` is its body, used as-is when it held no JSON-RPC message */
  end(raw: string, headers: Record<string, string | string[]>): void {
    if (this.sse || this.jsonLines) {
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
