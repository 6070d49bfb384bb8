/**
 * The built CLI (`node bin/mcp-rewind.js`, dist/: `npm run build:cli`) as a real process for the sign-in tests, and
 * the scan of everything written for secrets (raw, base64, base64url, URL-encoded).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { BIN, REPO } from './hostile.js';

export interface Cli {
  child: ChildProcess;
  /** the local MCP endpoint of a proxy (empty for other commands) */
  url: string;
  /** stdout and stderr as printed so far */
  output(): string;
  /** resolves with the first match of `pattern` in the output (bounded) */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
  /** SIGTERM, then waits for the exit */
  stop(): Promise<number | null>;
}

/** Starts the CLI with `env` added; a proxy (`banner: true`) is returned once its banner names its endpoint. */
export async function startCli(args: string[], env: NodeJS.ProcessEnv, banner = true): Promise<Cli> {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: REPO,
    env: { ...process.env, NO_COLOR: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.setEncoding('utf8').on('data', (d: string) => (output += d));
  child.stderr?.setEncoding('utf8').on('data', (d: string) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const waitFor = async (pattern: RegExp, timeoutMs = 20_000): Promise<RegExpExecArray> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const match = pattern.exec(output);
      if (match) return match;
      if (child.exitCode !== null)
        throw new Error(`the CLI exited (${child.exitCode}) before printing ${pattern}:\n${output}`);
      if (Date.now() > deadline) throw new Error(`the CLI printed no ${pattern} within ${timeoutMs} ms:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  };
  const url = banner ? (await waitFor(/MCP endpoint\s+(http\S+)/))[1] : '';
  return {
    child,
    url,
    output: () => output,
    waitFor,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}

/** Runs the CLI to its end (bounded: SIGKILL after 30 s). */
export async function runCliWith(
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; output: string }> {
  const cli = await startCli(args, env, false);
  const timer = setTimeout(() => cli.child.kill('SIGKILL'), 30_000);
  const code = await new Promise<number | null>((resolve) =>
    cli.child.exitCode !== null ? resolve(cli.child.exitCode) : cli.child.once('exit', resolve),
  );
  clearTimeout(timer);
  return { code, output: cli.output() };
}

/** Every file below `dir`. */
export async function filesBelow(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.filter((e) => e.isFile()).map((e) => path.join(e.parentPath, e.name));
}

/** Each secret in every form it could take in a file or a log. */
function forms(label: string, value: string): Array<[string, string]> {
  const out: Array<[string, string]> = [
    [`${label} (raw)`, value],
    [`${label} (base64)`, Buffer.from(value).toString('base64').replace(/=+$/, '')],
    [`${label} (base64url)`, Buffer.from(value).toString('base64url')],
  ];
  if (encodeURIComponent(value) !== value) out.push([`${label} (url-encoded)`, encodeURIComponent(value)]);
  return out;
}

/** "<file>: <secret> (<form>)" for every occurrence of a secret in the files and the extra texts (logs). */
export async function secretsFound(
  files: string[],
  texts: Record<string, string>,
  secrets: Record<string, string[]>,
): Promise<string[]> {
  const needles = Object.entries(secrets).flatMap(([label, values]) =>
    values.filter(Boolean).flatMap((v, i) => forms(`${label} #${i + 1}`, v)),
  );
  const haystacks: Array<[string, string]> = [...Object.entries(texts)];
  for (const file of files) haystacks.push([path.relative(REPO, file), await readFile(file, 'latin1')]);
  const hits: string[] = [];
  for (const [where, text] of haystacks)
    for (const [label, needle] of needles) if (text.includes(needle)) hits.push(`${where}: ${label}`);
  return hits;
}
