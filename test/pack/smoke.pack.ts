/**
 * The package as a user gets it (`npm run test:pack`, a step of .ci/run): `npm pack` (its prepack builds; once, in tarball.setup.ts), the tarball
 * installed into an empty folder with no dev dependencies, then every command run from there through npx, against
 * @modelcontextprotocol/server-everything: record, replay with the server stopped, verify, export, serve, `ui` opened in
 * Chromium, `app`. Last, `npm start` in the checkout.
 */
import { chromium, type Browser } from '@playwright/test';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile, chmod } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { connectClient, type ConnectedClient } from '../fixtures/client.js';
import { startEverything, type EverythingHttpHandle } from '../fixtures/everything.js';
import { compileSchema } from '../helpers/json-schema.js';
import { skipping } from '../helpers/skip.js';
import { killAll, run, start, userEnv, type Running } from './processes.js';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const VERSION = (JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string }).version;
const SCHEMA_HOST = 'https://cdn.jsdelivr.net/npm/mcp-rewind/';
const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));

let work: string; // temp root
let app: string; // the empty folder the tarball is installed into
let tarball: string;
let packedFiles: string[];
let installed: string; // app/node_modules/mcp-rewind
const npx = (args: string[], extraEnv: NodeJS.ProcessEnv = {}) =>
  run('npx', ['mcp-rewind', ...args], { cwd: app, env: userEnv(extraEnv) });
const startNpx = (args: string[]): Running => start('npx', ['mcp-rewind', ...args], { cwd: app, env: userEnv() });

async function calls(c: ConnectedClient): Promise<unknown> {
  return {
    tools: (await c.client.listTools()).tools.map((t) => t.name).sort(),
    echo: await c.client.callTool({ name: 'echo', arguments: { message: 'from the tarball' } }),
    sum: await c.client.callTool({ name: 'get-sum', arguments: { a: 19, b: 23 } }),
    structured: await c.client.callTool({ name: 'get-structured-content', arguments: { location: 'Chicago' } }),
  };
}

const endpoint = /MCP endpoint\s+(http:\/\/127\.0\.0\.1:\d+\/mcp)/;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'rewind-pack-'));
  app = join(work, 'app');
  await mkdir(app);
  tarball = inject('tarball'); // packed once for every pack test (tarball.setup.ts)
  packedFiles = inject('packedFiles');
  await writeFile(join(app, 'package.json'), JSON.stringify({ name: 'pack-smoke', private: true }));
  const install = await run('npm', ['install', '--omit=dev', '--no-audit', '--no-fund', tarball], {
    cwd: app,
    timeoutMs: 240_000,
  });
  expect(install.code, install.stderr).toBe(0);
  installed = join(app, 'node_modules/mcp-rewind');
}, 480_000);

afterAll(async () => {
  killAll();
  if (work) await rm(work, { recursive: true, force: true });
});

describe('npm pack', () => {
  it('holds only what runs: bin, compiled CLI and engine, built renderer, Electron bundles, schemas, icon, README, LICENSE', () => {
    expect(tarball).toMatch(new RegExp(`mcp-rewind-${VERSION.replace(/\./g, '\\.')}\\.tgz$`));
    const allowed =
      /^(bin\/|dist\/|out\/(main|preload|renderer)\/|schemas\/|resources\/icons\/256x256\.png$|package\.json$|README\.md$|LICENSE$)/;
    expect(packedFiles.filter((f) => !allowed.test(f))).toEqual([]);
    expect(
      packedFiles.filter((f) => f.endsWith('.map') || (f.endsWith('.ts') && !/^dist\/.*\.d\.ts$/.test(f))),
    ).toEqual([]);
    for (const f of [
      'bin/mcp-rewind.js',
      'dist/main/cli.js',
      'dist/lib/index.js',
      'dist/lib/index.d.ts',
      'dist/lib/vitest.js',
      'dist/lib/jest.js',
      'out/main/index.js',
      'out/preload/index.cjs',
      'out/renderer/index.html',
      'out/renderer/favicon.svg',
      'schemas/cassette-entry.schema.json',
      'schemas/rules.schema.json',
      'README.md',
      'LICENSE',
    ]) {
      expect(packedFiles).toContain(f);
    }
  });

  it('installs into an empty folder with its runtime dependencies only (no Electron, no build or test tools)', () => {
    const modules = readdirSync(join(app, 'node_modules'));
    for (const dep of ['commander', 'ws', 'zod', 'eventsource-parser']) expect(modules).toContain(dep);
    expect(existsSync(join(app, 'node_modules/@modelcontextprotocol/sdk'))).toBe(true);
    for (const dev of ['electron', 'electron-vite', 'vite', 'react', 'typescript', 'vitest', 'tsx', 'playwright'])
      expect(modules).not.toContain(dev);
    const pkg = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as Record<
      string,
      Record<string, string> | undefined
    >;
    expect(Object.keys({ ...pkg.dependencies, ...pkg.optionalDependencies, ...pkg.peerDependencies })).not.toContain(
      'electron',
    );
  });
});

describe('npx mcp-rewind, from the installed tarball', () => {
  let everything: EverythingHttpHandle | undefined;
  const cache = (): string => join(app, 'cache');
  afterAll(async () => everything?.close());

  it("--help lists the options and the commands; --version, also as npx mcp-rewind@<version> (the Export view's command)", async () => {
    const help = await npx(['--help']);
    expect(help.code, help.stderr).toBe(0);
    expect(help.stdout).toContain('Usage: mcp-rewind');
    for (const word of ['--replay', '--cache', 'serve', 'verify', 'export', 'ui', 'app'])
      expect(help.stdout).toContain(word);
    expect((await npx(['--version'])).stdout.trim()).toBe(VERSION);
    const pinned = await run('npx', [`mcp-rewind@${VERSION}`, '--version'], { cwd: app });
    expect(pinned.stdout.trim(), pinned.stderr).toBe(VERSION);
  });

  it('records a few calls of server-everything, and replays them with the server stopped', async () => {
    everything = await startEverything('streamableHttp');
    const recorder = startNpx(['--url', everything.url, '--cache', './cache']);
    const c = await connectClient((await recorder.waitFor(endpoint))[1]);
    const live = await calls(c);
    expect(JSON.stringify(live)).toContain('The sum of 19 and 23 is 42.');
    await c.close();
    expect((await recorder.stop()).stderr).not.toContain('internal error'); // Ctrl-C: pending writes finish, then exit
    await everything.close();
    everything = undefined;

    const replayer = startNpx(['--replay', '--cache', './cache']);
    const r = await connectClient((await replayer.waitFor(endpoint))[1]);
    expect(await calls(r)).toEqual(live);
    await r.close();
    await replayer.stop();
  });

  it("the entries' $schema resolves to the packaged schema, which accepts them and rejects a malformed one", async () => {
    const files = readdirSync(cache()).filter(
      (f) => /^\d+ .+\.json$/.test(f) && !/\.(req|res|res-head)\.json$/.test(f),
    );
    const referenced = new Set<string>();
    for (const file of files) {
      const data = JSON.parse(await readFile(join(cache(), file), 'utf8')) as Record<string, unknown>;
      // mcp-rewind's bare results, unless a list carries the capabilities its client declared (then it is wrapped)
      const bare =
        /^\d+ initialize\.json$/.test(file) || (/^\d+ tools_list\.json$/.test(file) && !data.clientCapabilities);
      if (bare) expect(data, file).not.toHaveProperty('$schema');
      else referenced.add(String(data.$schema));
    }
    expect(referenced.size).toBe(1);
    const [url] = referenced;
    expect(url.startsWith(SCHEMA_HOST)).toBe(true);
    const schemaFile = join(installed, url.slice(SCHEMA_HOST.length)); // the URL serves the package's files
    const schema = JSON.parse(await readFile(schemaFile, 'utf8')) as Record<string, unknown>;
    expect(schema.$id).toBe(url);
    const check = compileSchema(schema);
    for (const file of files)
      expect(check.problem(JSON.parse(await readFile(join(cache(), file), 'utf8'))), file).toBeUndefined();
    expect(check.problem({ $schema: url, name: 'echo', arguments: {}, resultHash: 'x' })).toBeDefined(); // no result
  });

  it('verify sends the recorded requests to the live server: no drift, JUnit written', async () => {
    everything = await startEverything('streamableHttp');
    const verified = await npx(['verify', '--cache', './cache', '--url', everything.url, '--junit', 'verify.xml']);
    expect(verified.code, `${verified.stdout}\n${verified.stderr}`).toBe(0);
    expect(verified.stdout).toMatch(/\d+ keys: \d+ ok, 0 drift/);
    expect(await readFile(join(app, 'verify.xml'), 'utf8')).toContain('<testsuite name="mcp-rewind verify"');
  });

  it('export writes one file and HAR; the single file replays', async () => {
    const exported = await npx(['export', '--cache', './cache', '--out', 'cassette.json', '--har', 'cassette.har']);
    expect(exported.code, exported.stderr).toBe(0);
    expect(JSON.parse(await readFile(join(app, 'cassette.json'), 'utf8'))).toMatchObject({
      format: 'mcp-rewind-cassette',
      version: 1,
    });
    expect(JSON.parse(await readFile(join(app, 'cassette.har'), 'utf8'))).toMatchObject({ log: { version: '1.2' } });
    const replayer = startNpx(['--replay', '--cache', 'cassette.json']);
    const r = await connectClient((await replayer.waitFor(endpoint))[1]);
    expect(await r.client.callTool({ name: 'get-sum', arguments: { a: 19, b: 23 } })).toMatchObject({
      content: [{ type: 'text', text: 'The sum of 19 and 23 is 42.' }],
    });
    await r.close();
    await replayer.stop();
  });

  it('serve: a REST session replaying the cassette answers an agent', async () => {
    const serve = startNpx(['serve', '--port', '0', '--data-dir', join(work, 'serve-data')]);
    const base = (await serve.waitFor(/REST API\s+(http:\/\/127\.0\.0\.1:\d+)\/api\/sessions/))[1];
    const token = (await serve.waitFor(/API token\s+(\S+)\s+\(new;/))[1]; // generated, kept in the data folder
    expect((await fetch(`${base}/api/healthz`)).status).toBe(200);
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${token}` };
    const created = await fetch(`${base}/api/sessions`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ name: 'smoke', mode: 'replay', cassette: cache() }),
    });
    expect(created.status).toBe(201);
    const session = (await created.json()) as { mcp: { url: string; headers: Record<string, string> } };
    const agent = await connectClient(session.mcp.url, { headers: session.mcp.headers });
    expect(await agent.client.callTool({ name: 'echo', arguments: { message: 'from the tarball' } })).toMatchObject({
      content: [{ type: 'text', text: 'Echo: from the tarball' }],
    });
    await agent.close();
    await serve.stop();
  });

  const NO_BROWSER =
    !CHROMIUM && !process.env.PLAYWRIGHT_BROWSERS_PATH && 'no /usr/bin/chromium and no PLAYWRIGHT_BROWSERS_PATH';
  it.skipIf(skipping(NO_BROWSER, 'the packed browser UI in Chromium'))(
    'ui: the browser UI opens in Chromium on the Timeline',
    async () => {
      const ui = startNpx(['ui', '--no-open', '--port', '0', '--data-dir', join(work, 'ui-data')]);
      const url = (await ui.waitFor(/open\s+(http:\/\/127\.0\.0\.1:\d+\/\S*code=\S+)/))[1];
      let browser: Browser | undefined;
      try {
        browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu'] });
        const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
        await page.goto(url);
        await expect
          .poll(() => page.getByRole('heading', { level: 1 }).textContent(), { timeout: 15_000 })
          .toBe('Timeline');
        for (const name of ['Timeline', 'Rules', 'Cassettes', 'Export', 'Settings'])
          expect(await page.getByRole('button', { name, exact: true }).count(), name).toBeGreaterThan(0);
        const favicon = await page.evaluate(
          async () =>
            (await fetch((document.querySelector('link[rel="icon"][type="image/svg+xml"]') as HTMLLinkElement).href))
              .status,
        );
        expect(favicon).toBe(200);
        await page.screenshot({ path: join(REPO, 'test-results/pack-ui-timeline.png') });
      } finally {
        await browser?.close();
        await ui.stop();
      }
    },
  );

  it('app: says in one line what to install where Electron is missing', async () => {
    const result = await npx(['app']);
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n'), result.stderr).toHaveLength(1);
    expect(result.stderr).toContain('npm install electron');
    expect(result.stderr).toContain('mcp-rewind ui');
  });

  it('app: launches the Electron on the PATH with the installed package as the app (a stand-in: no Electron binary here)', async () => {
    // Electron's binary cannot be downloaded on these machines, so a stand-in `electron` records what it is given.
    const bin = join(work, 'fake-bin');
    await mkdir(bin, { recursive: true });
    await writeFile(join(bin, 'electron'), `#!/bin/sh\necho "electron $*" > "${join(work, 'electron-args.txt')}"\n`);
    await chmod(join(bin, 'electron'), 0o755);
    const result = await npx(['app'], { PATH: `${bin}${delimiter}${userEnv().PATH}` });
    expect(result.code, result.stderr).toBe(0);
    const launched = (await readFile(join(work, 'electron-args.txt'), 'utf8')).trim().replace(/^electron /, '');
    expect(launched.replace(/\/$/, '')).toBe(installed);
    const main = (JSON.parse(await readFile(join(launched, 'package.json'), 'utf8')) as { main: string }).main;
    expect(existsSync(join(launched, main))).toBe(true); // what Electron loads: out/main/index.js
  });
});

describe('npm start in the checkout', () => {
  const hasElectron = ((): boolean => {
    try {
      const path = createRequire(join(REPO, 'package.json'))('electron') as unknown;
      return typeof path === 'string' && existsSync(path);
    } catch {
      return false;
    }
  })();
  if (hasElectron)
    console.log(
      'npm start opens the desktop app on this machine (Electron binary installed): its browser-UI fallback is not exercised here',
    );

  it.skipIf(hasElectron)(
    "serves the browser UI, saying in one line why, where Electron's binary cannot be had",
    async () => {
      const started = start('npm', ['start', '--', '--no-open', '--port', '0'], {
        cwd: REPO,
        env: userEnv({ MCP_REWIND_DATA_DIR: join(work, 'start-data') }),
      });
      try {
        const url = (await started.waitFor(/open\s+(http:\/\/127\.0\.0\.1:\d+\/\S*code=\S+)/, 120_000))[1];
        expect(started.stdout()).toMatch(
          /mcp-rewind: .*(could not be downloaded|not installed).*serving the browser UI instead\./,
        );
        const page = await fetch(url);
        expect(page.status).toBe(200);
        expect(await page.text()).toContain('<div id="root">');
      } finally {
        await started.stop();
      }
    },
  );
});
