/**
 * The built CLI (`node bin/mcp-rewind.js`, i.e. dist/) as a real process: argument validation, exit statuses,
 * banner, record → replay, signals, --clean, --verbose.
 *
 * `npm test` builds the CLI first (npm run build:cli); in a dev loop run `npx tsc -p tsconfig.cli.json` before vitest.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import { createServer, type Server as NetServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { keyFor } from '../src/main/engine/cassette/keys.js';
import { connectClient, type ConnectedClient } from './fixtures/client.js';
import { startSdkServer, type SdkServerHandle } from './fixtures/sdk-server.js';
import { closedPort } from './helpers/ports.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BIN = path.join(REPO, 'bin/mcp-rewind.js');
const VERSION = (JSON.parse(readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { version: string }).version;

// ---------------------------------------------------------------------------------------------------------------
// process helpers

interface Finished {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

const children = new Set<ChildProcess>();

function killAll(): Promise<void> {
  return Promise.all(
    [...children].map(async (child) => {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGKILL');
        await exited;
      }
      children.delete(child);
    }),
  ).then(() => {});
}

function spawnCli(args: string[], bin = BIN): ChildProcess {
  const child = spawn(process.execPath, [bin, ...args], {
    cwd: REPO,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NO_COLOR: '1' },
  });
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

/** Runs the CLI to completion (bounded: SIGKILL after 20 s, which fails the caller's status assertion). */
function runCli(args: string[], bin = BIN): Promise<Finished> {
  const child = spawnCli(args, bin);
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr?.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  return new Promise((resolve) => {
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

interface RunningCli {
  child: ChildProcess;
  url: string;
  port: number;
  stdout(): string;
  stderr(): string;
  /** sends a signal and waits (bounded) for the exit */
  stop(signal?: NodeJS.Signals): Promise<Finished>;
}

/** Starts a long-running CLI and waits (bounded) for its banner. */
async function startCli(args: string[]): Promise<RunningCli> {
  const child = spawnCli(args);
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr?.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const closed = new Promise<Finished>((resolve) =>
    child.once('close', (code, signal) => resolve({ code, signal, stdout, stderr })),
  );
  const deadline = Date.now() + 15_000;
  let match: RegExpMatchArray | null;
  while (!(match = /MCP endpoint\s+(http:\/\/127\.0\.0\.1:(\d+)\/mcp)/.exec(stdout))) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`CLI exited (${child.exitCode ?? child.signalCode}) before its banner:\n${stdout}\n${stderr}`);
    if (Date.now() > deadline) throw new Error(`CLI printed no banner within 15 s:\n${stdout}\n${stderr}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  return {
    child,
    url: match[1],
    port: Number(match[2]),
    stdout: () => stdout,
    stderr: () => stderr,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      const finished = await closed;
      clearTimeout(timer);
      return finished;
    },
  };
}

function get(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.setTimeout(10_000, () => req.destroy(new Error('no answer within 10 s')));
    req.on('error', reject);
  });
}

const lines = (text: string): string[] => text.split('\n').filter((l) => l.length > 0);

function textOf(result: unknown): string {
  return ((result as CallToolResult).content ?? []).map((c) => (c.type === 'text' ? c.text : '')).join('');
}

const DISTILLED = /^(\d+) (.+?)\.json$/;
const isDistilled = (name: string): boolean => DISTILLED.test(name) && !/\.(req|res|res-head)\.json$/.test(name);
const echoKey = (text: string): string =>
  keyFor({ method: 'tools/call', params: { name: 'echo', arguments: { text } } });

// ---------------------------------------------------------------------------------------------------------------
// shared cleanup

const tempDirs: string[] = [];
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'rewind-cli-'));
  tempDirs.push(dir);
  return dir;
}
const clients: ConnectedClient[] = [];
async function connect(url: string): Promise<ConnectedClient> {
  const c = await connectClient(url);
  clients.push(c);
  return c;
}

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close().catch(() => {})));
  await killAll();
});
afterAll(async () => {
  await Promise.all(tempDirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

beforeAll(() => {
  if (!existsSync(path.join(REPO, 'dist/main/cli.js')))
    throw new Error('dist/main/cli.js is missing: run `npm run build:cli` (npm test does it)');
});

// ---------------------------------------------------------------------------------------------------------------

describe('usage errors: exit 2 and exactly one line on stderr', () => {
  it.each([
    { name: '--clean --replay', args: ['--clean', '--replay'], mentions: '--clean' },
    {
      name: '--proxy-only --replay',
      args: ['--proxy-only', '--replay', '--url', 'http://127.0.0.1:1/mcp'],
      mentions: '--proxy-only',
    },
    { name: 'record mode without --url', args: [], mentions: '--url' },
    { name: '--port abc', args: ['--replay', '--port', 'abc'], mentions: '--port' },
    { name: '--port 70000', args: ['--replay', '--port', '70000'], mentions: '--port' },
    { name: '--url not-a-url', args: ['--url', 'not-a-url'], mentions: 'not-a-url' },
    { name: '--url ftp://x', args: ['--url', 'ftp://x'], mentions: 'ftp://x' },
    { name: 'an unknown option', args: ['--replay', '--no-such-option'], mentions: '--no-such-option' },
    { name: 'a stray argument', args: ['--replay', 'stray'], mentions: 'argument' },
    { name: '--attach without --stdio', args: ['--attach', '--', 'node', 'server.js'], mentions: '--stdio' },
    {
      name: '--attach with --replay',
      args: ['--stdio', '--attach', '--replay', '--', 'node', 'server.js'],
      mentions: '--replay',
    },
    {
      name: '--record without --attach',
      args: ['--stdio', '--record', 'x', '--', 'node', 'server.js'],
      mentions: '--attach',
    },
    {
      name: 'an upstream after -- and --url',
      args: ['--url', 'http://127.0.0.1:1/mcp', '--', 'node', 'server.js'],
      mentions: '--url',
    },
    // the sign-in flags need an upstream: replay has none (record, hybrid and proxy-only take them)
    {
      name: '--no-oauth in replay',
      args: ['--replay', '--no-oauth'],
      mentions: '--no-oauth applies to the modes that use the upstream',
    },
    {
      name: '--oauth-client-id in replay',
      args: ['--replay', '--oauth-client-id', 'x'],
      mentions: '--oauth-client-id applies to',
    },
    {
      name: '--sign-in-timeout in replay',
      args: ['--replay', '--sign-in-timeout', '10'],
      mentions: '--sign-in-timeout applies to',
    },
    {
      name: '--oauth-client-id empty',
      args: ['--url', 'http://127.0.0.1:1/mcp', '--oauth-client-id', ''],
      mentions: '--oauth-client-id must be',
    },
  ])('$name', async ({ args, mentions }) => {
    const dir = await tempDir();
    const { code, stdout, stderr } = await runCli([...args, '--cache', path.join(dir, 'cassette')]);
    expect(code, stderr).toBe(2);
    expect(lines(stderr), stderr).toHaveLength(1);
    expect(stderr).toMatch(/^mcp-rewind: /);
    expect(stderr).toContain(mentions);
    expect(stdout).toBe('');
    // a refused command line touches nothing
    expect(await readdir(dir)).toEqual([]);
  });
});

describe('informational flags', () => {
  it('--help prints the usage on stdout and exits 0', async () => {
    const { code, stdout, stderr } = await runCli(['--help']);
    expect(code, stderr).toBe(0);
    expect(stdout).toContain('Usage: mcp-rewind');
    for (const flag of ['--url', '--replay', '--cache', '--port', '--clean', '--proxy-only', '--verbose'])
      expect(stdout).toContain(flag);
    expect(stderr).toBe('');
  });

  it('--version prints the package.json version and exits 0', async () => {
    const { code, stdout, stderr } = await runCli(['--version']);
    expect(code, stderr).toBe(0);
    expect(stdout.trim()).toBe(VERSION);
  });

  it('`npx mcp-rewind` in the checkout runs the built CLI (the package bin)', async () => {
    const { execFile } = await import('node:child_process');
    const { stdout } = await new Promise<{ stdout: string }>((resolve, reject) =>
      execFile('npx', ['--offline', 'mcp-rewind', '--version'], { cwd: REPO, timeout: 60_000 }, (error, out) =>
        error ? reject(error) : resolve({ stdout: out }),
      ),
    );
    expect(stdout.trim()).toBe(VERSION);
  });
});

describe('start-up failures: exit 1 and one line', () => {
  it('--url to a closed port names the URL', async () => {
    const url = `http://127.0.0.1:${await closedPort()}/mcp`;
    const dir = await tempDir();
    const { code, stdout, stderr } = await runCli(['--url', url, '--cache', path.join(dir, 'cassette')]);
    expect(code, stderr).toBe(1);
    expect(lines(stderr), stderr).toHaveLength(1);
    expect(stderr).toContain(url);
    expect(stdout).toBe('');
  });

  it('a --cache that cannot be a folder (below a regular file)', async () => {
    const dir = await tempDir();
    await writeFile(path.join(dir, 'plain-file'), 'x');
    const cache = path.join(dir, 'plain-file', 'cassette');
    const { code, stdout, stderr } = await runCli(['--replay', '--cache', cache]);
    expect(code, stderr).toBe(1);
    expect(lines(stderr), stderr).toHaveLength(1);
    expect(stderr).toMatch(/^mcp-rewind: /);
    expect(stderr).toContain(cache);
    expect(stdout).toBe('');
  });

  it('a --port already in use', async () => {
    const busy: NetServer = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    try {
      const port = (busy.address() as { port: number }).port;
      const dir = await tempDir();
      const { code, stdout, stderr } = await runCli(['--replay', '--port', String(port), '--cache', dir]); // an existing cassette: replay refuses a missing one first
      expect(code, stderr).toBe(1);
      expect(lines(stderr), stderr).toHaveLength(1);
      expect(stderr).toMatch(/^mcp-rewind: /);
      expect(stderr).toContain(String(port));
      expect(stdout).toBe('');
    } finally {
      await new Promise<void>((resolve) => busy.close(() => resolve()));
    }
  });
});

describe('running against a real upstream', () => {
  let upstream: SdkServerHandle | undefined;

  afterEach(async () => {
    await killAll();
    await upstream?.close();
    upstream = undefined;
  });

  it('record mode: the banner names the mode and the local endpoint; /healthcheck answers 200', async () => {
    upstream = await startSdkServer();
    const dir = await tempDir();
    const cli = await startCli(['--url', upstream.url, '--cache', path.join(dir, 'cassette')]);
    expect(cli.stdout()).toContain('record mode');
    expect(cli.stdout()).toContain(`http://127.0.0.1:${cli.port}/mcp`);
    expect(cli.stdout()).toContain(upstream.url);
    const health = await get(`http://127.0.0.1:${cli.port}/healthcheck`);
    expect(health.status).toBe(200);
    expect(JSON.parse(health.body)).toMatchObject({ status: 'ok', mode: 'record' });
    expect(cli.stderr()).toBe('');
  });

  it('credentials in --url are used but neither printed nor stored', async () => {
    upstream = await startSdkServer();
    const url = new URL(upstream.url);
    url.username = 'user';
    url.password = 'pw-secret-222';
    url.searchParams.set('token', 'tok-secret-333');
    const secrets = ['pw-secret-222', 'tok-secret-333'];
    const dir = path.join(await tempDir(), 'cassette');
    const cli = await startCli(['--url', url.href, '--cache', dir]);
    const { client } = await connect(cli.url);
    expect(textOf(await client.callTool({ name: 'echo', arguments: { text: 'creds' } }))).toBe('echo: creds');
    const finished = await cli.stop();
    expect(finished.code).toBe(0);
    expect(finished.stdout).toContain(`127.0.0.1:${upstream.port}/mcp`);
    for (const secret of secrets) {
      expect(finished.stdout).not.toContain(secret);
      expect(finished.stderr).not.toContain(secret);
    }
    const names = await readdir(dir);
    expect(names.some((n) => n.endsWith('.req.json'))).toBe(true);
    for (const name of names) {
      const content = await readFile(path.join(dir, name), 'utf8');
      for (const secret of secrets) expect(content, `${name} contains ${secret}`).not.toContain(secret);
    }

    // and the start-up failure line names the upstream without them
    const closed = new URL(url);
    closed.port = String(await closedPort());
    const failed = await runCli(['--url', closed.href, '--cache', dir]);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain(`127.0.0.1:${closed.port}`);
    for (const secret of secrets) expect(failed.stderr).not.toContain(secret);
  });

  it('SIGTERM right after calls returned: exit 0 and every exchange is in the cassette', async () => {
    upstream = await startSdkServer();
    const dir = path.join(await tempDir(), 'cassette');
    const cli = await startCli(['--url', upstream.url, '--cache', dir]);
    const { client } = await connect(cli.url);
    const texts = Array.from({ length: 20 }, (_, i) => `sigterm ${i} ${'y'.repeat(50_000)}`);
    const results = await Promise.all(texts.map((text) => client.callTool({ name: 'echo', arguments: { text } })));
    expect(results.map(textOf)).toEqual(texts.map((t) => `echo: ${t}`));

    const finished = await cli.stop('SIGTERM'); // the client is still connected, recordings may still be in flight
    expect(finished.signal).toBeNull();
    expect(finished.code, finished.stderr).toBe(0);

    const names = await readdir(dir);
    expect(names.filter((n) => n.startsWith('.rewind-tmp-'))).toEqual([]);
    const distilled = names.filter(isDistilled);
    const keys = distilled.map((n) => (DISTILLED.exec(n) as RegExpExecArray)[2]);
    expect(keys).toContain('initialize');
    for (const text of texts) expect(keys).toContain(echoKey(text));
    for (const name of distilled) JSON.parse(await readFile(path.join(dir, name), 'utf8'));
    const one = JSON.parse(
      await readFile(path.join(dir, distilled.find((n) => n.includes(echoKey(texts[7]))) as string), 'utf8'),
    ) as { result: unknown };
    expect(textOf(one.result)).toBe(`echo: ${texts[7]}`);
  });

  it('record, then replay with the upstream closed: a real client gets the same tool result', async () => {
    upstream = await startSdkServer();
    const dir = path.join(await tempDir(), 'cassette');
    const recorder = await startCli(['--url', upstream.url, '--cache', dir]);
    const live = await connect(recorder.url);
    const recorded = await live.client.callTool({ name: 'add', arguments: { a: 2, b: 40 } });
    expect(recorded.structuredContent).toEqual({ sum: 42 });
    expect((await recorder.stop()).code).toBe(0);
    await upstream.close();
    upstream = undefined;

    const replayer = await startCli(['--replay', '--cache', dir]);
    expect(replayer.stdout()).toContain('replay mode');
    expect(replayer.stdout()).toMatch(/\(\d+ entries\)/);
    const c = await connect(replayer.url);
    expect(c.client.getServerVersion()?.name).toBe('fixture-server');
    const replayed = await c.client.callTool({ name: 'add', arguments: { a: 2, b: 40 } });
    expect(replayed).toEqual(recorded);
  });

  it('--clean removes the previous cassette files and keeps unrelated files (SIGINT also exits 0)', async () => {
    upstream = await startSdkServer();
    const dir = path.join(await tempDir(), 'cassette');
    const first = await startCli(['--url', upstream.url, '--cache', dir]);
    const c1 = await connect(first.url);
    await c1.client.callTool({ name: 'echo', arguments: { text: 'old' } });
    expect((await first.stop('SIGINT')).code).toBe(0);
    // unrelated files, including JSON that is not named like a cassette file; and a temp file of a killed writer
    await writeFile(path.join(dir, 'notes.txt'), 'my notes');
    await writeFile(path.join(dir, 'README.md'), '# cassette');
    await writeFile(path.join(dir, 'settings.json'), '{}');
    await writeFile(path.join(dir, '.rewind-tmp-0123456789ab'), '{"half":');
    const before = await readdir(dir);
    expect(before.filter((n) => n.includes(echoKey('old')))).toHaveLength(4); // distilled + .req/.res/.res-head

    const second = await startCli(['--url', upstream.url, '--cache', dir, '--clean']);
    expect(second.stdout()).toContain('(0 entries)');
    const afterClean = await readdir(dir);
    expect(afterClean.sort()).toEqual(['README.md', 'notes.txt', 'settings.json']);
    expect(await readFile(path.join(dir, 'notes.txt'), 'utf8')).toBe('my notes');

    const c2 = await connect(second.url);
    await c2.client.callTool({ name: 'echo', arguments: { text: 'new' } });
    expect((await second.stop()).code).toBe(0);
    const after = await readdir(dir);
    expect(after.some((n) => n.includes(echoKey('new')))).toBe(true);
    expect(after.some((n) => n.includes(echoKey('old')))).toBe(false);
    expect(after).toContain('notes.txt');
  });

  it('--verbose prints hit and miss lines on stderr in replay (and nothing of the kind without it)', async () => {
    upstream = await startSdkServer();
    const dir = path.join(await tempDir(), 'cassette');
    const recorder = await startCli(['--url', upstream.url, '--cache', dir]);
    const live = await connect(recorder.url);
    await live.client.callTool({ name: 'echo', arguments: { text: 'known' } });
    expect((await recorder.stop()).code).toBe(0);
    await upstream.close();
    upstream = undefined;

    for (const verbose of [true, false]) {
      const replayer = await startCli(['--replay', '--cache', dir, ...(verbose ? ['--verbose'] : [])]);
      const c = await connect(replayer.url);
      expect(textOf(await c.client.callTool({ name: 'echo', arguments: { text: 'known' } }))).toBe('echo: known');
      const miss = await c.client.callTool({ name: 'echo', arguments: { text: 'unknown' } }).then(
        () => undefined,
        (e: Error) => e,
      );
      expect(miss?.message).toContain('no recorded answer');
      await c.close();
      clients.splice(clients.indexOf(c), 1);
      const { code, stderr } = await replayer.stop();
      expect(code).toBe(0);
      const log = lines(stderr);
      // one line per exchange, starting with its outcome and naming its key (the rest of the format is free)
      // (an error message at the end of a line may name other keys: only the part before it counts)
      const logged = (outcome: string, key: string): boolean =>
        log.some((l) => {
          const words = l.split(/\serror\s/)[0].split(/\s+/);
          return words[0] === outcome && words.includes(key);
        });
      if (verbose) {
        expect(logged('hit', 'initialize'), stderr).toBe(true);
        expect(logged('hit', echoKey('known')), stderr).toBe(true);
        expect(logged('miss', echoKey('unknown')), stderr).toBe(true);
        expect(logged('miss', echoKey('known')) || logged('hit', echoKey('unknown')), stderr).toBe(false);
      } else {
        expect(log.filter((l) => /^(hit|miss)\b/.test(l))).toEqual([]);
      }
    }
  });
});
