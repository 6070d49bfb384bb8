import type { ChildProcess } from 'node:child_process';
import { PassThrough } from 'node:stream';
import spawn from 'cross-spawn';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { LineReader } from './lines.js';

/** How long each step of stopping a child may take: stdin closed, then SIGTERM, then SIGKILL. */
const STOP_STEP_MS = 2_000;

/**
 * An MCP client transport over a child's stdin/stdout, as the SDK's StdioClientTransport (the same spawn, framing
 * and stop sequence), but holding its ChildProcess: the bridge says how a child ended (its exit code or signal) and
 * which children still run, which the SDK's transport keeps to itself.
 */
export class ChildStdioTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;
  /** the child's stderr; there before start(), so nothing it prints early is lost */
  readonly stderr = new PassThrough();
  private child?: ChildProcess;
  /** close() was called or the child's streams closed: nothing more is sent */
  private stopped = false;
  private readonly buffer = new ReadBuffer();

  constructor(
    private readonly params: { command: string; args: string[]; env: Record<string, string>; cwd?: string },
    /** the child's stdout line by line, unparsed (the stdio proxy reads it so); absent: parsed into onmessage */
    private readonly lines?: LineReader,
  ) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** spawned and not exited yet */
  get running(): boolean {
    return this.child?.pid !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** how the child ended — `exited (code 3)`, `exited (signal SIGKILL)` — once it has */
  get exit(): string | undefined {
    const child = this.child;
    if (child?.signalCode) return `exited (signal ${child.signalCode})`;
    return child?.exitCode !== null && child?.exitCode !== undefined ? `exited (code ${child.exitCode})` : undefined;
  }

  start(): Promise<void> {
    if (this.child) throw new Error('ChildStdioTransport already started');
    const { command, args, env, cwd } = this.params;
    const child = spawn(command, args, {
      env,
      cwd,
      stdio: ['pipe', 'pipe', 'pipe'],
      shell: false,
      windowsHide: process.platform === 'win32',
    });
    this.child = child;
    child.stderr?.pipe(this.stderr);
    child.stdin?.on('error', (error) => this.onerror?.(error));
    child.stdout?.on('error', (error) => this.onerror?.(error));
    const lines = this.lines;
    if (lines) child.stdout?.on('data', (chunk: Buffer) => lines.push(chunk));
    else child.stdout?.on('data', (chunk: Buffer) => this.read(chunk));
    child.on('close', () => {
      this.stopped = true;
      this.onclose?.();
    });
    return new Promise((resolve, reject) => {
      child.once('spawn', () => resolve());
      child.on('error', (error) => {
        reject(error);
        this.onerror?.(error);
      });
    });
  }

  private read(chunk: Buffer): void {
    try {
      this.buffer.append(chunk);
    } catch (error) {
      this.onerror?.(error as Error); // a line longer than the SDK's limit: the child is stopped
      void this.close();
      return;
    }
    for (;;) {
      let message: JSONRPCMessage | null;
      try {
        message = this.buffer.readMessage();
      } catch (error) {
        this.onerror?.(error as Error); // one bad line; the next may be fine
        continue;
      }
      if (message === null) return;
      this.onmessage?.(message);
    }
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (!stdin || this.stopped) return Promise.reject(new Error('Not connected'));
    return new Promise((resolve) =>
      stdin.write(serializeMessage(message)) ? resolve() : stdin.once('drain', () => resolve()),
    );
  }

  /** Writes text as it is (whole lines, each with its `\n`): false when the child cannot take it. */
  write(text: string): boolean {
    const stdin = this.child?.stdin;
    if (!stdin || this.stopped) return false;
    stdin.write(text);
    return true;
  }

  /** Closes stdin; SIGTERM after 2 s; SIGKILL after 2 s more. */
  async close(): Promise<void> {
    const child = this.child;
    const wasOpen = !this.stopped;
    this.stopped = true;
    if (child && wasOpen && this.running) {
      const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
      const step = (): Promise<void> =>
        Promise.race([closed, new Promise<void>((resolve) => setTimeout(resolve, STOP_STEP_MS).unref())]);
      child.stdin?.end();
      await step();
      if (this.running) child.kill('SIGTERM');
      if (this.running) await step();
      if (this.running) child.kill('SIGKILL');
    }
    this.buffer.clear();
  }
}
