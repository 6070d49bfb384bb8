import { spawn, type ChildProcess } from 'node:child_process';
import { BIN, REPO } from './hostile.js';

/** The built CLI as a long-running process (build first): its MCP endpoint, what it printed, and a bounded stop. */
export interface CliProcess {
  child: ChildProcess;
  url: string;
  stdout(): string;
  stderr(): string;
  /** sends a signal and waits (bounded) for the exit status */
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; stderr: string }>;
}

const started = new Set<ChildProcess>();

/** Kills whatever a test left running (afterEach). */
export function killCliProcesses(): void {
  for (const child of started) child.kill('SIGKILL');
  started.clear();
}

/** Starts `mcp-rewind <args>` and waits (at most 15 s) for its banner's MCP endpoint. */
export async function startCliProcess(args: string[]): Promise<CliProcess> {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: REPO,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NO_COLOR: '1' },
  });
  started.add(child);
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const closed = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  const deadline = Date.now() + 15_000;
  let match: RegExpMatchArray | null;
  while (!(match = /MCP endpoint\s+(http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(stdout))) {
    if (child.exitCode !== null)
      throw new Error(`CLI exited (${child.exitCode}) before its banner:\n${stdout}\n${stderr}`);
    if (Date.now() > deadline) throw new Error(`CLI printed no banner within 15 s:\n${stdout}\n${stderr}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  return {
    child,
    url: match[1],
    stdout: () => stdout,
    stderr: () => stderr,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      const code = await closed;
      clearTimeout(timer);
      started.delete(child);
      return { code, stderr };
    },
  };
}
