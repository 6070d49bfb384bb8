import { createInterface } from 'node:readline';
import type { JsonRpcMessage, JsonRpcNotification, JsonRpcRequest } from '../../../shared/jsonrpc.js';
import type { Log } from '../log.js';
import type { MessageUpstream } from '../pipeline/message-planner.js';
import { UpstreamSession } from '../pipeline/upstream/message-upstream.js';
import type { Session } from '../pipeline/core/session.js';
import { fullEnvironment } from './child-env.js';
import { LineReader } from './lines.js';
import { ChildStdioTransport, type LaunchedChild } from './stdio-child.js';

/** A stdio MCP server as a command. */
export interface ChildSpec {
  command: string;
  args: string[];
  env?: Record<string, string>;
  cwd?: string;
}

export interface ChildEvents {
  /** a line of the child's stdout: true when it was passed on as it is (nobody needs it read) */
  passed(line: string): boolean;
  /** a message of the child, read (`raw`: its line) */
  message(message: JsonRpcMessage, raw: string): void;
  /** the child ended on its own (`reason`: how): what it left unanswered is answered so */
  gone(reason: string): void;
  log: Log;
}

interface Running {
  transport: ChildStdioTransport;
  session: UpstreamSession;
}

/**
 * A stdio server as the upstream of the message-level pipeline (stdio-proxy.ts): one child at a time, spawned for
 * the first message that goes to it, its stdout read line by line (passed on unparsed when nobody needs it read), its
 * stderr logged line by line. A child that exits ends what it left unanswered; the next request starts a new one,
 * which the client's own initialize params open again (message-upstream.ts). Stopping it closes its stdin, then
 * SIGTERM, then SIGKILL (stdio-child.ts).
 */
export class ChildUpstream implements MessageUpstream {
  private running?: Running;
  /** a request is opening the child (spawn, the proxy's own initialize): its lines are read, never passed */
  private opening = 0;
  private closed = false;
  private raw = '';

  constructor(
    private readonly spec: ChildSpec,
    private readonly events: ChildEvents,
  ) {}

  /** for logs: `process "node"` */
  get label(): string {
    return `process "${this.spec.command}"`;
  }

  /** a child runs and no request is opening one: a client line may go to it unread */
  get ready(): boolean {
    return this.running !== undefined && this.opening === 0 && this.running.session.started;
  }

  /**
   * Takes a child spawned ahead (launchChild, with this spec) as the running one and starts reading it, before any
   * message goes to it: the client's initialize then finds a server that has booted meanwhile.
   */
  adopt(launched: LaunchedChild): void {
    if (this.running || this.closed) throw new Error('ChildUpstream: a child runs already');
    const running = (this.running = this.spawn(launched));
    running.session.start().catch(() => {
      if (this.running === running && !running.transport.running) this.running = undefined; // it never started
    });
  }

  private spawn(launched?: LaunchedChild): Running {
    const { spec, events } = this;
    const lines = new LineReader(
      (line) => this.line(line),
      (bytes) => events.log(`upstream ${this.label}: a line of ${bytes} bytes is too long: dropped`, 'warn'),
    );
    const transport = new ChildStdioTransport(
      { command: spec.command, args: spec.args, env: fullEnvironment(spec.env), cwd: spec.cwd },
      lines,
      launched,
    );
    createInterface({ input: transport.stderr }).on('line', (line) =>
      events.log(`upstream ${this.label}: ${line}`, 'warn'),
    );
    const running: Running = {
      transport,
      session: new UpstreamSession(transport, (message) => events.message(message as JsonRpcMessage, this.raw), {
        onclose: () => this.ended(running),
        onerror: (error) => events.log(`upstream ${this.label}: ${error.message}`, 'warn'),
      }),
    };
    return running;
  }

  private line(line: string): void {
    if (line.trim() === '') return;
    if (this.opening === 0 && this.events.passed(line)) return;
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      this.events.log(`upstream ${this.label}: a line that is not JSON: dropped (${line.slice(0, 80)})`, 'warn');
      return;
    }
    this.raw = line;
    this.running?.transport.onmessage?.(message as never);
    this.raw = '';
  }

  private ended(running: Running): void {
    if (this.running !== running) return;
    this.running = undefined;
    if (this.closed) return;
    const reason = running.transport.exit ?? 'exited';
    this.events.log(`upstream ${this.label} ${reason}`, 'warn');
    this.events.gone(`${this.label} ${reason}`);
  }

  async open(request: JsonRpcRequest, session: Session): Promise<void> {
    if (this.closed) throw new Error('the proxy is shutting down');
    const running = (this.running ??= this.spawn());
    this.opening++;
    try {
      await running.session.open(request, session);
    } catch (error) {
      if (this.running === running && !running.transport.running) this.running = undefined; // it never started
      throw error;
    } finally {
      this.opening--;
    }
  }

  send(message: JsonRpcMessage, options?: unknown): Promise<void> {
    const running = this.running;
    if (!running) return Promise.reject(new Error(`${this.label} is not running`));
    return running.session.send(message, options);
  }

  notify(
    message: JsonRpcNotification,
    options: unknown,
    upstreamRequests: ReadonlyMap<unknown, unknown>,
  ): Promise<void> {
    return this.running?.session.notify(message, options, upstreamRequests) ?? Promise.resolve();
  }

  /** Writes a client's line as it is; false when no child can take it (then it goes through open()). */
  pass(line: string): boolean {
    return this.ready && this.running!.transport.write(`${line}\n`);
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.running?.session.close();
  }
}
