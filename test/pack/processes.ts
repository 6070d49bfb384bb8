import { spawn, type ChildProcess } from 'node:child_process';
import { delimiter, join } from 'node:path';

/**
 * Commands as a user types them (`npx mcp-rewind …`, `npm start`), each in its own process group so that stopping it
 * also stops what npm/npx started below it, and so that nothing outlives the suite.
 */
export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface Running {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** waits (bounded) until stdout matches, and returns the match */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  /** SIGINT to the process group (Ctrl-C), SIGKILL after 10 s; resolves with the exit */
  stop(): Promise<Finished>;
}

const groups = new Set<ChildProcess>();

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    if (child.pid) process.kill(-child.pid, signal);
  } catch {
    // already gone
  }
}

/** Kills whatever is still running (afterAll). */
export function killAll(): void {
  for (const child of groups) killGroup(child, 'SIGKILL');
  groups.clear();
}

/**
 * The environment of a user's shell: without the npm_* variables and the node_modules/.bin folders on the PATH that
 * `npm run test:pack` (or npx vitest) adds for its own scripts.
 */
export function userEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)));
  const PATH = (process.env.PATH ?? '')
    .split(delimiter)
    .filter((dir) => !dir.endsWith(join('node_modules', '.bin')))
    .join(delimiter);
  return {
    ...env,
    PATH,
    NO_COLOR: '1',
    npm_config_update_notifier: 'false',
    npm_config_fund: 'false',
    npm_config_audit: 'false',
    ...extra,
  };
}

export function start(command: string, args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv }): Running {
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: options.env ?? userEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  groups.add(child);
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr?.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const closed = new Promise<Finished>((resolve) =>
    child.once('close', (code) => {
      groups.delete(child);
      resolve({ code, stdout, stderr });
    }),
  );
  return {
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    async waitFor(pattern, timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const match = pattern.exec(stdout);
        if (match) return match;
        if (child.exitCode !== null || child.signalCode !== null)
          throw new Error(
            `${command} ${args.join(' ')} exited (${child.exitCode ?? child.signalCode}) before printing ${pattern}:\n${stdout}\n${stderr}`,
          );
        if (Date.now() > deadline)
          throw new Error(
            `${command} ${args.join(' ')} printed no ${pattern} within ${timeoutMs} ms:\n${stdout}\n${stderr}`,
          );
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    async stop() {
      killGroup(child, 'SIGINT');
      const timer = setTimeout(() => killGroup(child, 'SIGKILL'), 10_000);
      const finished = await closed;
      clearTimeout(timer);
      return finished;
    },
  };
}

/** Runs a command to completion (SIGKILL after `timeoutMs`, which the caller sees as a null exit code). */
export async function run(
  command: string,
  args: string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<Finished> {
  const running = start(command, args, options);
  const timer = setTimeout(() => killGroup(running.child, 'SIGKILL'), options.timeoutMs ?? 120_000);
  const finished = await new Promise<Finished>((resolve) =>
    running.child.once('close', (code) => resolve({ code, stdout: running.stdout(), stderr: running.stderr() })),
  );
  clearTimeout(timer);
  return finished;
}
