import { randomUUID } from 'node:crypto';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import type { AppServerRequest } from '../../../shared/api.js';

/** how long a question waits for the user before it is refused by itself */
const ANSWER_TIMEOUT_MS = 5 * 60_000;
/** JSON-RPC code of a request the user refused (the spec's "User rejected sampling request" uses -1) */
export const REFUSED_CODE = -1;

interface Waiting {
  request: AppServerRequest;
  resolve: (result: Record<string, unknown>) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

/**
 * Server→client requests made to the app's own sessions (sampling/createMessage, elicitation/create during a Resend
 * or a Compose call): each waits here until the user answers it in the UI, refuses it, or it times out (refused).
 */
export class ServerRequestDesk {
  private readonly waiting = new Map<string, Waiting>();

  constructor(private readonly changed: (pending: AppServerRequest[]) => void) {}

  list(): AppServerRequest[] {
    return [...this.waiting.values()].map((w) => w.request);
  }

  ask(proxyId: string, method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> {
    const id = randomUUID();
    const since = Date.now();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => this.settle(id, { error: `no answer within ${ANSWER_TIMEOUT_MS / 60_000} minutes` }),
        ANSWER_TIMEOUT_MS,
      ).unref();
      this.waiting.set(id, {
        request: { id, proxyId, method, params, since, timeoutAt: since + ANSWER_TIMEOUT_MS },
        resolve,
        reject,
        timer,
      });
      this.changed(this.list());
    });
  }

  /** The user's answer: a result, or a refusal (the server gets a JSON-RPC error saying so). */
  answer(id: string, answer: { result?: Record<string, unknown>; error?: string }): AppServerRequest[] {
    if (!this.waiting.has(id)) throw new Error('id: this request was answered already, or timed out');
    this.settle(id, answer);
    return this.list();
  }

  refuseAll(proxyId: string, why: string): void {
    for (const w of [...this.waiting.values()])
      if (w.request.proxyId === proxyId) this.settle(w.request.id, { error: why });
  }

  private settle(id: string, answer: { result?: Record<string, unknown>; error?: string }): void {
    const w = this.waiting.get(id);
    if (!w) return;
    this.waiting.delete(id);
    clearTimeout(w.timer);
    if (answer.result) w.resolve(answer.result);
    else
      w.reject(
        new McpError(
          REFUSED_CODE,
          `mcp-rewind: ${w.request.method} refused by the user${answer.error ? `: ${answer.error}` : ''}`,
        ),
      );
    this.changed(this.list());
  }
}
