/**
 * The library as a test suite uses it (`npm run test:pack`): the packed tarball installed into an empty project with
 * vitest, jest, the SDK and server-everything from the registry, test files written there and run by the project's own
 * vitest, jest and node:test — recording against server-everything, replaying with the server gone, a strict replay
 * with one changed argument failing with the difference, wrapTransport replaying without spawning anything, and the
 * examples of docs/testing.md copied as they are written.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { killAll, run, userEnv, type Finished } from './processes.js';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const SERVER = 'node_modules/@modelcontextprotocol/server-everything';
const PEERS = [
  'vitest@4.1.12',
  'jest@30.5.2',
  '@modelcontextprotocol/sdk@1.32.2',
  '@modelcontextprotocol/server-everything@2026.8.31',
];

let work: string;
let app: string;

/** The environment of a developer's shell (CI unset: the helpers' default is then hybrid), plus `extra`. */
function env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const base = userEnv(extra);
  for (const name of [
    'CI',
    'MCP_REWIND_MODE',
    'MCP_REWIND_STRICT',
    'VITEST',
    'VITEST_WORKER_ID',
    'VITEST_POOL_ID',
    'NODE_OPTIONS',
  ])
    if (!(name in extra)) delete base[name];
  return base;
}

const vitest = (args: string[], extra?: Record<string, string>): Promise<Finished> =>
  run(process.execPath, ['node_modules/vitest/vitest.mjs', 'run', ...args], {
    cwd: app,
    env: env(extra),
    timeoutMs: 120_000,
  });

/** The server is gone: its package moved away (a spawn of it fails), and back. */
async function withoutServer<T>(body: () => Promise<T>): Promise<T> {
  await rename(join(app, SERVER), join(app, `${SERVER}.gone`));
  try {
    return await body();
  } finally {
    await rename(join(app, `${SERVER}.gone`), join(app, SERVER));
  }
}

const write = async (file: string, text: string): Promise<void> => {
  await mkdir(dirname(join(app, file)), { recursive: true });
  await writeFile(join(app, file), text);
};

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'rewind-library-'));
  app = join(work, 'app');
  await mkdir(app);
  await writeFile(join(app, 'package.json'), JSON.stringify({ name: 'library-user', private: true, type: 'module' }));
  const install = await run('npm', ['install', '--no-audit', '--no-fund', inject('tarball'), ...PEERS], {
    cwd: app,
    env: env(),
    timeoutMs: 400_000,
  });
  expect(install.code, install.stderr).toBe(0);
}, 480_000);

afterAll(async () => {
  killAll();
  if (work) await rm(work, { recursive: true, force: true });
});

const START_PROXY_TEST = `
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { expect, it } from 'vitest';
import { startProxy } from 'mcp-rewind';

const b = Number(process.env.SUM_B ?? 23);

it('sums through a proxy', async () => {
  const mcp = await startProxy({ cassette: 'cassettes/sum', upstream: { command: 'node', args: ['${SERVER}/dist/index.js', 'stdio'] } });
  try {
    const client = new Client({ name: 'pack-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(mcp.url)));
    const result = await client.callTool({ name: 'get-sum', arguments: { a: 19, b } });
    expect(result.content[0].text).toBe(\`The sum of 19 and \${b} is \${19 + b}.\`);
    await client.close();
  } finally {
    await mcp.close();
  }
  console.log(\`MODE \${mcp.mode}\`);
}, 30_000);
`;

const WRAP_TEST = `
import { readdirSync, readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { expect, it } from 'vitest';
import { wrapTransport } from 'mcp-rewind';

/** the pids of this process's children (Linux /proc) */
const children = () => readdirSync(\`/proc/\${process.pid}/task\`).flatMap((t) => readFileSync(\`/proc/\${process.pid}/task/\${t}/children\`, 'utf8').split(' ').filter(Boolean));

it('echoes in process', async () => {
  const before = children();
  const stdio = new StdioClientTransport({ command: 'node', args: ['${SERVER}/dist/index.js', 'stdio'], stderr: 'ignore' });
  const transport = wrapTransport(stdio, { cassette: 'cassettes/wrapped' });
  const client = new Client({ name: 'pack-test', version: '1.0.0' });
  await client.connect(transport);
  const result = await client.callTool({ name: 'echo', arguments: { message: 'in process' } });
  expect(result.content).toEqual([{ type: 'text', text: 'Echo: in process' }]);
  const spawned = children().filter((pid) => !before.includes(pid));
  const pid = stdio.pid;
  await client.close();
  console.log(\`MODE \${transport.mode} STARTED \${transport.upstreamStarted} PID \${pid} CHILDREN \${spawned.length}\`);
}, 30_000);
`;

describe('startProxy from the installed package, run by the project’s vitest', () => {
  it('records against server-everything, replays with the server gone, and a strict replay with a changed argument fails with the difference', async () => {
    await write('test/proxy.test.js', START_PROXY_TEST);
    const recorded = await vitest(['test/proxy.test.js'], { MCP_REWIND_MODE: 'record' });
    expect(recorded.code, recorded.stdout + recorded.stderr).toBe(0);
    expect(recorded.stdout).toContain('MODE record');
    expect(
      readdirSync(join(app, 'cassettes/sum')).some((f) => /^\d+ tools_call_get-sum_[0-9a-f]{16}\.json$/.test(f)),
    ).toBe(true);

    await withoutServer(async () => {
      const replayed = await vitest(['test/proxy.test.js'], { MCP_REWIND_MODE: 'replay' });
      expect(replayed.code, replayed.stdout + replayed.stderr).toBe(0);
      expect(replayed.stdout).toContain('MODE replay');

      const strict = await vitest(['test/proxy.test.js'], {
        MCP_REWIND_MODE: 'replay',
        MCP_REWIND_STRICT: '1',
        SUM_B: '24',
      });
      expect(strict.code).toBe(1);
      expect(strict.stdout + strict.stderr).toContain('arguments.b: 23 recorded, 24 asked');
      expect(strict.stdout + strict.stderr).toMatch(/closest recorded tools_call_get-sum_[0-9a-f]{16}/);
    });
  });
});

describe('wrapTransport from the installed package, around the SDK’s StdioClientTransport', () => {
  it('records (the server is spawned), then replays without spawning it: no child process', async () => {
    await write('test/wrap.test.js', WRAP_TEST);
    const recorded = await vitest(['test/wrap.test.js'], { MCP_REWIND_MODE: 'record' });
    expect(recorded.code, recorded.stdout + recorded.stderr).toBe(0);
    expect(recorded.stdout).toMatch(/MODE record STARTED true PID \d+ CHILDREN 1/);
    await withoutServer(async () => {
      const replayed = await vitest(['test/wrap.test.js'], { CI: 'true' });
      expect(replayed.code, replayed.stdout + replayed.stderr).toBe(0);
      expect(replayed.stdout).toContain('MODE replay STARTED false PID null CHILDREN 0');
    });
  });
});

const HELPER_TEST = (framework: 'vitest' | 'jest'): string => `
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
${framework === 'vitest' ? "import { it } from 'vitest';\nimport { useCassette } from 'mcp-rewind/vitest';" : "import { useCassette } from 'mcp-rewind/jest';"}

const b = Number(process.env.SUM_B ?? 23);

${framework === 'vitest' ? 'it' : 'test'}('sums, and shrugs off tool errors', async () => {
  const mcp = await useCassette({ dir: 'cassettes/${framework}', upstream: { command: 'node', args: ['${SERVER}/dist/index.js', 'stdio'] } });
  const client = new Client({ name: 'pack-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(mcp.url)));
  const text = await client.callTool({ name: 'get-sum', arguments: { a: 19, b } }).then((r) => r.content[0].text, (e) => \`error: \${e.message}\`);
  console.log(\`GOT \${text}\`);
  await client.close();
}, 30_000);
`;

describe('the helpers fail a test whose strict replay missed, even when the test swallowed the error', () => {
  const runners = {
    vitest: (extra: Record<string, string>) => vitest(['test/helper.test.js'], extra),
    jest: (extra: Record<string, string>) =>
      run(
        process.execPath,
        ['--experimental-vm-modules', 'node_modules/jest/bin/jest.js', '--config', 'jest.helper.config.mjs'],
        {
          cwd: app,
          env: env(extra),
          timeoutMs: 120_000,
        },
      ),
  };
  for (const framework of ['vitest', 'jest'] as const) {
    it(`${framework}: recorded, then a strict replay with a changed argument fails with the CassetteMissError summary; a plain replay passes`, async () => {
      if (framework === 'vitest') await write('test/helper.test.js', HELPER_TEST('vitest'));
      else {
        await write('test/jest-helper/helper.test.mjs', HELPER_TEST('jest'));
        await write(
          'test/jest-helper/setup.mjs',
          "import { setupCassettes } from 'mcp-rewind/jest';\nsetupCassettes();\n",
        );
        await write(
          'jest.helper.config.mjs',
          "export default { roots: ['<rootDir>/test/jest-helper'], setupFilesAfterEnv: ['<rootDir>/test/jest-helper/setup.mjs'], transform: {} };\n",
        );
      }
      const recorded = await runners[framework]({ MCP_REWIND_MODE: 'record' });
      expect(recorded.code, recorded.stdout + recorded.stderr).toBe(0);
      expect(recorded.stdout + recorded.stderr).toContain('GOT The sum of 19 and 23 is 42.');
      await withoutServer(async () => {
        const strict = await runners[framework]({ CI: 'true', MCP_REWIND_STRICT: '1', SUM_B: '24' });
        const said = strict.stdout + strict.stderr;
        expect(strict.code, said).toBe(1);
        expect(said).toContain('GOT error:'); // the test itself went on
        expect(said).toContain('CassetteMissError');
        expect(said).toContain('1 replay miss:');
        expect(said).toContain('arguments.b: 23 recorded, 24 asked');
        const plain = await runners[framework]({ CI: 'true', SUM_B: '24' });
        expect(plain.code, plain.stdout + plain.stderr).toBe(0);
      });
    });
  }
});

/** The code blocks of docs/testing.md that start with `// <path>`: written to that path, as they are. */
async function docExamples(): Promise<string[]> {
  const page = await readFile(join(REPO, 'docs/testing.md'), 'utf8');
  const files: string[] = [];
  for (const [, body] of page.matchAll(/```(?:js|ts)\n([\s\S]*?)```/g)) {
    const path = /^\/\/ (\S+\.(?:mjs|js|ts))\n/.exec(body)?.[1];
    if (!path) continue;
    await write(path, body);
    files.push(path);
  }
  return files;
}

describe('the examples of docs/testing.md, as written', () => {
  let files: string[];
  beforeAll(async () => {
    files = await docExamples();
  });

  const runners: Array<{
    name: string;
    run: (extra?: Record<string, string>) => Promise<Finished>;
    cassettes: string;
  }> = [
    { name: 'vitest', run: (extra) => vitest(['test/vitest'], extra), cassettes: 'test/vitest/__cassettes__' },
    {
      name: 'jest',
      run: (extra) =>
        run(process.execPath, ['--experimental-vm-modules', 'node_modules/jest/bin/jest.js'], {
          cwd: app,
          env: env(extra),
          timeoutMs: 120_000,
        }),
      cassettes: 'test/jest/__cassettes__',
    },
    {
      name: 'node:test',
      run: (extra) =>
        run(process.execPath, ['--test', 'test/node/everything.test.mjs'], {
          cwd: app,
          env: env(extra),
          timeoutMs: 120_000,
        }),
      cassettes: 'test/node/__cassettes__',
    },
  ];

  it('the page has the vitest, jest (config, setup, test) and node:test files', () => {
    expect(files.sort()).toEqual([
      'jest.config.mjs',
      'test/jest/everything.test.mjs',
      'test/jest/setup.mjs',
      'test/node/everything.test.mjs',
      'test/vitest/everything.test.ts',
    ]);
  });

  for (const runner of runners) {
    it(`${runner.name}: the first run records (hybrid), a run on CI replays with the server gone`, async () => {
      const first = await runner.run();
      expect(first.code, first.stdout + first.stderr).toBe(0);
      expect(existsSync(join(app, runner.cassettes))).toBe(true);
      const folders = readdirSync(join(app, runner.cassettes));
      expect(folders.length).toBeGreaterThan(0);
      for (const folder of folders) expect(folder).toMatch(/^[A-Za-z0-9._-]+-[0-9a-f]{8}$/);
      await withoutServer(async () => {
        const replayed = await runner.run({ CI: 'true', MCP_REWIND_STRICT: '1' });
        expect(replayed.code, replayed.stdout + replayed.stderr).toBe(0);
      });
    });
  }
});

describe('install size', () => {
  it('the tarball with its production dependencies only (no electron, react, vite)', async () => {
    const dir = join(work, 'size');
    await mkdir(dir);
    await writeFile(join(dir, 'package.json'), JSON.stringify({ name: 'size', private: true }));
    const install = await run('npm', ['install', '--omit=dev', '--no-audit', '--no-fund', inject('tarball')], {
      cwd: dir,
      env: env(),
      timeoutMs: 240_000,
    });
    expect(install.code, install.stderr).toBe(0);
    const modules = readdirSync(join(dir, 'node_modules'));
    for (const heavy of ['electron', 'react', 'react-dom', 'vite', 'vitest', 'jest'])
      expect(modules).not.toContain(heavy);
    const kB = async (path: string): Promise<number> =>
      Number((await run('du', ['-sk', path], { cwd: dir })).stdout.split(/\s/)[0]);
    const all = await kB('node_modules');
    const own = await kB('node_modules/mcp-rewind');
    console.log(
      `install size: ${all} kB in node_modules (mcp-rewind itself ${own} kB; tarball ${Math.round(statSync(inject('tarball')).size / 1024)} kB)`,
    );
    expect(all).toBeGreaterThan(own);
  });
});
