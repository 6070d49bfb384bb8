/**
 * Starts the bench servers as child processes (`node --import tsx bench/servers/<name>.ts`) and waits for the
 * `URL <url>` line each prints. Children are ended on exit; they also exit by themselves when our stdin pipe to them
 * closes, so a killed bench leaves nothing behind.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const children = new Set<ChildProcess>();

function killAll(): void {
  for (const child of children) if (child.exitCode === null && child.pid !== undefined) child.kill('SIGTERM');
}
process.on('exit', killAll);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    killAll();
    process.exit(130);
  });
}

export interface Child {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/** `profileDir`: run the child with `--cpu-prof` (the profile is written when it stops); `env`: added to ours. */
export function startServer(
  name: string,
  args: string[] = [],
  profileDir?: string,
  env?: Record<string, string>,
): Promise<Child> {
  const script = fileURLToPath(new URL(`./servers/${name}.ts`, import.meta.url));
  const nodeArgs = [
    '--import',
    'tsx',
    ...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []),
    script,
    ...args,
  ];
  const child = spawn(process.execPath, nodeArgs, {
    stdio: ['pipe', 'pipe', 'inherit'],
    env: env ? { ...process.env, ...env } : process.env,
  });
  children.add(child);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  void exited.then(() => children.delete(child));

  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error(`${name}: no URL within 60 s`)), 60_000);
    let out = '';
    const fail = (error: Error): void => {
      clearTimeout(timer);
      child.kill('SIGTERM');
      reject(error);
    };
    const early = (code: number | null): void =>
      fail(new Error(`${name} exited (code ${code}) before printing its URL`));
    child.once('exit', early);
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const m = /^URL (\S+)$/m.exec(out);
      if (!m) return;
      clearTimeout(timer);
      child.off('exit', early);
      child.stdout!.removeAllListeners('data');
      child.stdout!.resume();
      resolve({
        url: m[1],
        pid: child.pid!,
        stop: async () => {
          if (child.exitCode === null) child.kill('SIGTERM');
          await exited;
        },
      });
    });
  });
}
