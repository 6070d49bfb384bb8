import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { reasonOf } from '../errors.js';
import { closeOwnClient, connectOwnClient, listAllTools, ping } from '../upstream/own-client.js';
import type { Log } from '../log.js';
import type { UpstreamAuth } from '../upstream/oauth/challenge.js';

export type UpstreamState = 'connecting' | 'connected' | 'disconnected';

export interface SupervisorOptions {
  /** the upstream's sign-in: the supervisor uses its token (and a refresh), never waits for a browser */
  auth?: UpstreamAuth;
  connectTimeoutMs: number;
  /** how often a connected upstream is checked (ping) */
  intervalMs: number;
  onTools: (tools: Array<Record<string, unknown>>) => void;
  log: Log;
}

const MAX_BACKOFF_MS = 30_000;

/**
 * The `serve` session's own connection to its upstream: opens an MCP session, learns the tool list (the merged
 * view needs it before any agent connects), pings it, and on failure reconnects with exponential backoff.
 * Agents' traffic uses upstream sessions of their own (pipeline/upstream/upstream-session.ts), which reopen on a 404.
 */
export class UpstreamSupervisor {
  state: UpstreamState = 'connecting';
  lastError: string | null = null;
  attempts = 0;
  connectedAt: string | null = null;
  private client?: Client;
  private timer?: NodeJS.Timeout;
  private stopped = false;

  constructor(
    private readonly url: URL,
    private readonly displayUrl: string,
    private readonly headers: Record<string, string>,
    private readonly options: SupervisorOptions,
  ) {
    void this.connect();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.drop();
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    this.state = 'connecting';
    this.attempts++;
    try {
      this.drop();
      this.client = await connectOwnClient(this.url, {
        name: 'mcp-rewind-supervisor',
        headers: this.headers,
        timeoutMs: this.options.connectTimeoutMs,
        auth: this.options.auth,
      });
      await this.refreshTools();
      if (this.stopped) return;
      this.state = 'connected';
      this.connectedAt = new Date().toISOString();
      this.lastError = null;
      this.options.log(`upstream ${this.displayUrl} connected`, 'info');
      this.schedule(this.options.intervalMs, () => this.check());
    } catch (error) {
      this.fail(error);
    }
  }

  /** Re-reads the tool list (all pages). */
  async refreshTools(): Promise<void> {
    if (!this.client) throw new Error('not connected');
    this.options.onTools(await listAllTools(this.client, this.options.connectTimeoutMs));
  }

  /** Ends the supervisor's own upstream session (a new one is opened on reconnect). */
  private drop(): void {
    if (this.client) void closeOwnClient(this.client);
    this.client = undefined;
  }

  private async check(): Promise<void> {
    try {
      if (!this.client) throw new Error('not connected');
      await ping(this.client, this.options.connectTimeoutMs);
      this.schedule(this.options.intervalMs, () => this.check());
    } catch (error) {
      this.fail(error);
    }
  }

  private fail(error: unknown): void {
    if (this.stopped) return;
    const wasConnected = this.state === 'connected';
    this.state = 'disconnected';
    this.lastError = reasonOf(error);
    if (wasConnected) this.attempts = 0;
    const backoff = Math.min(MAX_BACKOFF_MS, 250 * 2 ** Math.min(this.attempts, 10));
    this.options.log(`upstream ${this.displayUrl} unavailable (${this.lastError}); retrying in ${backoff} ms`, 'info');
    this.schedule(backoff, () => this.connect());
  }

  private schedule(ms: number, run: () => Promise<void>): void {
    clearTimeout(this.timer);
    if (!this.stopped) this.timer = setTimeout(() => void run(), ms).unref();
  }
}
