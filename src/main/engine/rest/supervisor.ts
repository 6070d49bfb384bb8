import { ErrorCode } from '../../../shared/jsonrpc.js';
import type { HttpUpstream } from '../upstream/http-upstream.js';

export type UpstreamState = 'connecting' | 'connected' | 'disconnected';

export interface SupervisorOptions {
  connectTimeoutMs: number;
  /** how often a connected upstream is checked (ping) */
  intervalMs: number;
  onTools: (tools: Array<Record<string, unknown>>) => void;
  log: (line: string) => void;
}

const MAX_BACKOFF_MS = 30_000;

/**
 * The `serve` session's own connection to its upstream: opens an MCP session, learns the tool list (the merged
 * view needs it before any agent connects), pings it, and on failure reconnects with exponential backoff.
 * Agents' traffic uses upstream sessions of their own (pipeline/owned-session.ts), which reopen on a 404.
 */
export class UpstreamSupervisor {
  state: UpstreamState = 'connecting';
  lastError: string | null = null;
  attempts = 0;
  connectedAt: string | null = null;
  private sessionId: string | null | undefined;
  private protocolVersion?: string;
  private timer?: NodeJS.Timeout;
  private stopped = false;

  constructor(
    private readonly upstream: HttpUpstream,
    private readonly options: SupervisorOptions,
  ) {
    void this.connect();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    if (this.sessionId) void this.upstream.endSession(this.sessionId, this.protocolVersion);
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    this.state = 'connecting';
    this.attempts++;
    try {
      const init = await withTimeout(
        this.upstream.initialize({ protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'mcp-rewind-supervisor', version: '1' } }),
        this.options.connectTimeoutMs,
        'handshake',
      );
      this.sessionId = init.sessionId ?? null;
      this.protocolVersion = init.protocolVersion;
      await this.refreshTools();
      if (this.stopped) return;
      this.state = 'connected';
      this.connectedAt = new Date().toISOString();
      this.lastError = null;
      this.options.log(`upstream ${this.upstream.displayUrl} connected`);
      this.schedule(this.options.intervalMs, () => this.check());
    } catch (error) {
      this.fail(error);
    }
  }

  /** Re-reads the tool list (all pages). */
  async refreshTools(): Promise<void> {
    const tools: Array<Record<string, unknown>> = [];
    let cursor: unknown;
    for (let page = 0; page < 100; page++) {
      const result = await this.request('tools/list', cursor === undefined ? {} : { cursor });
      tools.push(...((result.tools as Array<Record<string, unknown>>) ?? []));
      cursor = result.nextCursor;
      if (cursor === undefined || cursor === null) break;
    }
    this.options.onTools(tools);
  }

  private async check(): Promise<void> {
    try {
      await this.request('ping', {});
      this.schedule(this.options.intervalMs, () => this.check());
    } catch (error) {
      this.fail(error);
    }
  }

  private fail(error: unknown): void {
    if (this.stopped) return;
    const wasConnected = this.state === 'connected';
    this.state = 'disconnected';
    this.lastError = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    if (wasConnected) this.attempts = 0;
    const backoff = Math.min(MAX_BACKOFF_MS, 250 * 2 ** Math.min(this.attempts, 10));
    this.options.log(`upstream ${this.upstream.displayUrl} unavailable (${this.lastError}); retrying in ${backoff} ms`);
    this.schedule(backoff, () => this.connect());
  }

  private schedule(ms: number, run: () => Promise<void>): void {
    clearTimeout(this.timer);
    if (!this.stopped) this.timer = setTimeout(() => void run(), ms).unref();
  }

  private async request(method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> {
    const id = `supervisor-${method}`;
    const { status, messages } = await withTimeout(this.upstream.call({ jsonrpc: '2.0', id, method, params }, this.sessionId, this.protocolVersion), this.options.connectTimeoutMs, method);
    const answer = messages.find((m) => 'id' in m && m.id === id && !('method' in m));
    if (!answer || !('result' in answer)) {
      const message = answer && 'error' in answer ? answer.error.message : `HTTP ${status}`;
      throw Object.assign(new Error(`${method} failed: ${message}`), { rpc: ErrorCode.UpstreamUnavailable });
    }
    return answer.result;
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}
