/**
 * The Python MCP SDK (`pip install mcp`, 2.3.x) as a real peer: its server (test/fixtures/python/server.py) and its
 * client (client.py), run from the venv `.ci/run` creates at `.venv-py` (outside what git tracks). Where the venv is
 * missing (pip could not install the SDK), `pythonSdkMissing()` says why, and the tests that need it skip, saying so.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { REPO } from './hostile.js';

export const VENV_PYTHON = path.join(REPO, '.venv-py', 'bin', 'python');
const FIXTURES = path.join(REPO, 'test', 'fixtures', 'python');
/** Python imports the SDK (pydantic, httpx, starlette…) at every start: seconds, more on a loaded machine */
const START_MS = 120_000;
/** what a test of these peers may take */
export const PYTHON_TEST_MS = 240_000;

/** Why the Python SDK cannot be used here; undefined when it can. */
export function pythonSdkMissing(): string | undefined {
  if (!existsSync(VENV_PYTHON))
    return `no Python venv at ${path.relative(REPO, VENV_PYTHON)} (bash .ci/run creates it and pip installs mcp there)`;
  if (!existsSync(path.join(REPO, '.venv-py', 'lib'))) return 'the .venv-py venv is incomplete';
  return undefined;
}

export interface PythonServer {
  url: string;
  close(): Promise<void>;
}

/** Ends a child: its stdin closed (the fixture's way out), then SIGKILL after `ms` if it is still there. */
async function end(child: ChildProcess, ms = 5_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.stdin?.end();
  const timer = setTimeout(() => child.kill('SIGKILL'), ms);
  await exited;
  clearTimeout(timer);
}

/** Starts the Python fixture server (`--variant v2`: the next release) and resolves once it listens. */
export async function startPythonServer(args: string[] = []): Promise<PythonServer> {
  const child = spawn(VENV_PYTHON, [path.join(FIXTURES, 'server.py'), ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const url = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
    const timer = setTimeout(
      () => reject(new Error(`the Python server did not start within 120 s: ${stderr}`)),
      START_MS,
    );
    lines.on('line', (line) => {
      if (!line.startsWith('URL ')) return;
      clearTimeout(timer);
      resolve(line.slice(4).trim());
    });
    child.once('exit', (code) => reject(new Error(`the Python server exited (${code}): ${stderr}`)));
  });
  return { url, close: () => end(child) };
}

/** Runs the Python client's fixed session against `url` (`auto`: 2026-07-28 where offered) and resolves with what it saw. */
export function runPythonClient(url: string, mode: 'auto' | 'legacy' = 'auto'): Promise<Record<string, unknown>> {
  // asynchronous: the proxy it talks to runs in this process
  const child = spawn(VENV_PYTHON, [path.join(FIXTURES, 'client.py'), url, '--mode', mode], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const timer = setTimeout(() => child.kill('SIGKILL'), START_MS);
  return new Promise((resolve, reject) => {
    child.once('close', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(JSON.parse(stdout) as Record<string, unknown>);
      else reject(new Error(`the Python client exited ${code}: ${stderr.slice(-2000)}`));
    });
  });
}
