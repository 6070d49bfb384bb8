/**
 * `mcp-rewind ui` as a real process (the built CLI: `npm run build` first), for tests that look at it from outside —
 * its descriptors, the processes it starts, what it does on SIGTERM — and a fake browser opener to put on its PATH.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { childrenOf } from './procfs.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface UiProcess {
  child: ChildProcess;
  pid: number;
  /** http://127.0.0.1:<port> */
  origin: string;
  /** the link it printed for a human to paste */
  link: string;
  stdout(): string;
  /** the session token, as its owner reads it from the data folder (0600) */
  token(): string;
  exited: Promise<NodeJS.Signals | number | null>;
  /** SIGTERM, as a user stopping it; resolves when it has exited */
  stop(): Promise<void>;
}

const running = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

export async function startUiProcess(
  dataDir: string,
  options: { args?: string[]; env?: NodeJS.ProcessEnv } = {},
): Promise<UiProcess> {
  const child = spawn(
    process.execPath,
    [path.join(REPO, 'bin/mcp-rewind.js'), 'ui', '--port', '0', '--data-dir', dataDir, ...(options.args ?? [])],
    {
      cwd: REPO,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NO_COLOR: '1', ...options.env },
    },
  );
  running.add(child);
  let out = '';
  let err = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d));
  const exited = new Promise<NodeJS.Signals | number | null>((resolve) =>
    child.once('exit', (code, signal) => {
      running.delete(child);
      resolve(signal ?? code);
    }),
  );
  // the whole banner (it ends with "(Ctrl-C to stop)"), or all a second UI on the folder prints before it exits
  const link = await new Promise<string>((resolve, reject) => {
    const found = (): string | undefined => /open\s+(http:\/\/127\.0\.0\.1:\d+\/\S*)/.exec(out)?.[1];
    const timer = setTimeout(
      () => reject(new Error(`mcp-rewind ui printed no link within 30 s:\n${out}${err}`)),
      30_000,
    );
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      if (!found() || !out.includes('Ctrl-C')) return;
      clearTimeout(timer);
      resolve(found()!);
    });
    void exited.then((code) => {
      clearTimeout(timer);
      const link = found();
      if (link) resolve(link);
      else reject(new Error(`mcp-rewind ui exited (${code}) before its banner:\n${out}${err}`));
    });
  });
  return {
    child,
    pid: child.pid!,
    origin: new URL(link).origin,
    link,
    stdout: () => out,
    token: () => readFileSync(path.join(dataDir, 'ui-token'), 'utf8').trim(),
    exited,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/** Every living descendant of a process (children, their children…), from /proc. */
export function descendantsOf(pid: number): number[] {
  const found: number[] = [];
  for (let todo = childrenOf(pid); todo.length > 0;) {
    const next = todo.shift()!;
    found.push(next);
    todo.push(...childrenOf(next));
  }
  return found;
}

/** A process's argv as Linux shows it to every local user (/proc/<pid>/cmdline); '' once it is gone. */
export function argvOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
  } catch {
    return '';
  }
}

/**
 * A stand-in for xdg-open, put first on PATH: it notes its pid and arguments in `log`, then starts a "browser" with
 * the same arguments (a shell that sleeps, noting its own pid), as xdg-open does; both live `seconds`.
 */
export function fakeOpener(dir: string, log: string, seconds = 30): string {
  const file = path.join(dir, 'xdg-open');
  writeFileSync(
    file,
    `#!/bin/sh
echo "opener $$ $*" >> '${log}'
sh -c 'echo "browser $$" >> "$0"; sleep ${seconds}; :' '${log}' "$@" &
wait
`,
  );
  chmodSync(file, 0o755);
  return dir;
}

/** The API of a running UI over its WebSocket, as a script would use it (Authorization: Bearer, no Origin). */
export async function apiOf(
  origin: string,
  token: string,
): Promise<{ call<T = unknown>(command: string, input?: unknown): Promise<T>; close(): void }> {
  const ws = new WebSocket(`${origin.replace('http', 'ws')}/api`, { headers: { authorization: `Bearer ${token}` } });
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  let next = 1;
  const waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  ws.on('message', (data) => {
    const frame = JSON.parse(data.toString()) as {
      id?: number;
      ok?: boolean;
      output?: unknown;
      error?: { message: string };
    };
    const w = frame.id === undefined ? undefined : waiting.get(frame.id);
    if (!w) return;
    waiting.delete(frame.id!);
    if (frame.ok) w.resolve(frame.output);
    else w.reject(new Error(frame.error?.message));
  });
  ws.on('close', () => {
    for (const w of waiting.values()) w.reject(new Error('the UI closed the connection'));
  });
  return {
    call: <T>(command: string, input: unknown = {}) =>
      new Promise<T>((resolve, reject) => {
        const id = next++;
        waiting.set(id, { resolve: resolve as (v: unknown) => void, reject });
        ws.send(JSON.stringify({ id, command, input }));
      }),
    close: () => ws.terminate(),
  };
}
