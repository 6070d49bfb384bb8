/**
 * What Linux says about a process, from /proc: its open file descriptors and its children. Tests of what a process
 * holds (sockets, stdio children) read it from outside, as an operator would; elsewhere they skip with a reason.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const HAS_PROCFS = existsSync('/proc/self/fd');

/** How many file descriptors the process has open. */
export function openFds(pid: number): number {
  return readdirSync(`/proc/${pid}/fd`).length;
}

/** The pids of a process's living children (zombies excluded). */
export function childrenOf(pid: number): number[] {
  const children: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${name}/stat`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    // pid (comm) state ppid …: comm may hold spaces and parentheses, so parse after its last ')'
    const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(ppid) === pid && state !== 'Z') children.push(Number(name));
  }
  return children;
}

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * A child process running the built CLI (`node bin/mcp-rewind.js [serve] --port 0 …`: build first) until the test
 * kills it; `serve` runs `mcp-rewind serve` (its banner's MCP endpoint is `url`).
 */
export interface CliProcess {
  child: ChildProcess;
  pid: number;
  /** the local MCP URL from its banner */
  url: string;
  stderr(): string;
  exited: Promise<NodeJS.Signals | number | null>;
  close(): Promise<void>;
}

/** CLI children still running when the test process exits are killed (they would outlive it otherwise) */
const running = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

export async function startCli(args: string[], options: { serve?: boolean } = {}): Promise<CliProcess> {
  const command = options.serve ? ['serve'] : [];
  const child = spawn(process.execPath, [path.join(REPO, 'bin/mcp-rewind.js'), ...command, '--port', '0', ...args], {
    cwd: REPO,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NO_COLOR: '1' },
  });
  let stdout = '';
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  running.add(child);
  const exited = new Promise<NodeJS.Signals | number | null>((resolve) =>
    child.once('exit', (code, signal) => {
      running.delete(child);
      resolve(signal ?? code);
    }),
  );
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no banner within 30 s:\n${stderr}`)), 30_000);
    child.stdout?.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
      const m = /MCP endpoint\s+(\S+)/.exec(stdout);
      if (!m) return;
      clearTimeout(timer);
      resolve(m[1]);
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`exited (${code}) before its banner:\n${stderr}`));
    });
  });
  return {
    child,
    pid: child.pid as number,
    url,
    stderr: () => stderr,
    exited,
    async close() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}
