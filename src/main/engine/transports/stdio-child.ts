import type { ChildProcess } from 'node:child_process';
import { PassThrough } from 'node:stream';
import spawn from 'cross-spawn';
import type { ReadBuffer } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { LineReader } from './lines.js';

/** How long each step of stopping a child may take: stdin closed, then SIGTERM, then SIGKILL. */
const STOP_STEP_MS = 2_000;

export interface ChildParams {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
}

/** A child spawned before its transport exists: its output waits in its pipes until start() reads it. */
export interface LaunchedChild {
  child: ChildProcess;
  /** resolves once it runs; rejects with the spawn's error (ENOENT …) */
  spawned: Promise<void>;
}

/**
 * Spawns a stdio server now (the stdio proxy starts it first and loads its pipeline meanwhile), as
 * ChildStdioTransport.start() would; hand it to a ChildStdioTransport to read it.
 */
export function launchChild({ command, args, env, cwd }: ChildParams): LaunchedChild {
  const child = spawn(command, args, {
    env,
    cwd,
    stdio: ['pipe', 'pipe', 'pipe'],
    shell: false,
    windowsHide: process.platform === 'win32',
  });
  const spawned = new Promise<void>((resolve, reject) => {
    child.once('spawn', () => resolve());
    child.on('error', reject); // also keeps an early error from being thrown as unhandled before start() listens
  });
  spawned.catch(() => {}); // start() reports it
  return { child, spawned };
}

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
  /** the SDK's framing and message schema, loaded only where the stdout is parsed here (not with `lines`) */
  private buffer?: ReadBuffer;

  constructor(
    private readonly params: ChildParams,
    /** the child's stdout line by line, unparsed (the stdio proxy reads it so); absent: parsed into onmessage */
    private readonly lines?: LineReader,
    /** the child, already spawned (launchChild); absent: start() spawns it */
    private readonly launched?: LaunchedChild,
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

  async start(): Promise<void> {
    if (this.child) throw new Error('ChildStdioTransport already started');
    const { child, spawned } = this.launched ?? launchChild(this.params);
    this.child = child;
    const lines = this.lines;
    if (!lines) this.buffer = new (await import('@modelcontextprotocol/sdk/shared/stdio.js')).ReadBuffer();
    child.stderr?.pipe(this.stderr);
    child.stdin?.on('error', (error) => this.onerror?.(error));
    child.stdout?.on('error', (error) => this.onerror?.(error));
    if (lines) child.stdout?.on('data', (chunk: Buffer) => lines.push(chunk));
    else child.stdout?.on('data', (chunk: Buffer) => this.read(chunk));
    child.on('close', () => {
      this.stopped = true;
      this.onclose?.();
    });
    let running = false;
    child.on('error', (error) => running && this.onerror?.(error));
    await spawned.catch((error: Error) => {
      this.onerror?.(error);
      throw error;
    });
    running = true;
  }

  private read(chunk: Buffer): void {
    try {
      this.buffer!.append(chunk);
    } catch (error) {
      this.onerror?.(error as Error); // a line longer than the SDK's limit: the child is stopped
      void this.close();
      return;
    }
    for (;;) {
      let message: JSONRPCMessage | null;
      try {
        message = this.buffer!.readMessage();
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
      stdin.write(`${JSON.stringify(message)}\n`) ? resolve() : stdin.once('drain', () => resolve()),
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
    this.buffer?.clear();
  }
}
