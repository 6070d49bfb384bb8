/**
 * The pull-request workflow of docs/testing.md ("A pull-request gate"), run as written: its `run:` steps, in order,
 * with bash as GitHub's runner runs them (`bash --noprofile --norc -eo pipefail`), in a project of our making — a
 * real stdio MCP server (SDK McpServer), a node:test suite that uses the library, and the cassette that suite
 * recorded — with the built CLI of this checkout as its `mcp-rewind` (`npm run build:cli` first). `npm ci` is not
 * run (the project's node_modules are links into this checkout's; said when skipped), nor the `uses:` actions.
 * Every step passes; the replay step passes with the server's file gone; a changed server fails the verify step; a
 * secret in the cassette fails the scan step.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, symlink, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { REPO } from './helpers/hostile.js';
import { skipping } from './helpers/skip.js';
import { removeTempDirs, tempDir } from './helpers/temp.js';

afterAll(removeTempDirs);

interface Step {
  name?: string;
  run?: string;
  uses?: string;
  env?: Record<string, string | number>;
}

/** The workflow: the YAML block of docs/testing.md that starts with its file name. */
function workflow(): { on: Record<string, unknown>; jobs: Record<string, { steps: Step[] }> } {
  const page = readFileSync(join(REPO, 'docs/testing.md'), 'utf8');
  const blocks = [...page.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1]);
  const block = blocks.find((b) => b.startsWith('# .github/workflows/mcp-gate.yml'));
  if (!block) throw new Error('docs/testing.md has no mcp-gate.yml block');
  return parse(block);
}

const SERVER = (text: string): string => `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';
const server = new McpServer({ name: 'gate-fixture', version: '1.0.0' });
server.registerTool('add', { description: 'Adds two numbers', inputSchema: { a: z.number(), b: z.number() } },
  ({ a, b }) => ({ content: [{ type: 'text', text: \`${text} \${a + b}\` }] }));
await server.connect(new StdioServerTransport());
`;

const SUITE = `import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startProxy } from 'mcp-rewind';

test('adds two numbers', async (t) => {
  const mcp = await startProxy({ cassette: 'cassettes/my-server', upstream: { command: 'node', args: ['server.js'] } });
  t.after(async () => {
    await mcp.close();
    if (mcp.strict) mcp.assertNoMisses();
  });
  const client = new Client({ name: 'gate-suite', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(mcp.url)));
  const result = await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } });
  assert.deepEqual(result.content, [{ type: 'text', text: 'The sum is 5' }]);
  await client.close();
});
`;

/** A project as a user has it: package.json, server.js, its suite, node_modules linked to this checkout's. */
async function project(): Promise<string> {
  const dir = join(await tempDir(), 'project');
  await mkdir(join(dir, 'test'), { recursive: true });
  const pkg = {
    name: 'gate-fixture',
    version: '1.0.0',
    private: true,
    type: 'module',
    scripts: { test: 'node --test test/' },
  };
  await writeFile(join(dir, 'package.json'), JSON.stringify(pkg, null, 2));
  await writeFile(join(dir, 'server.js'), SERVER('The sum is'));
  await writeFile(join(dir, 'test/mcp.test.mjs'), SUITE);
  await mkdir(join(dir, 'node_modules/@modelcontextprotocol'), { recursive: true });
  await mkdir(join(dir, 'node_modules/.bin'));
  await symlink(REPO, join(dir, 'node_modules/mcp-rewind'));
  await symlink(
    join(REPO, 'node_modules/@modelcontextprotocol/sdk'),
    join(dir, 'node_modules/@modelcontextprotocol/sdk'),
  );
  await symlink(join(REPO, 'node_modules/zod'), join(dir, 'node_modules/zod'));
  await symlink(join(REPO, 'bin/mcp-rewind.js'), join(dir, 'node_modules/.bin/mcp-rewind'));
  return dir;
}

/** The environment of a step on a runner: CI=true, the job's and the step's env, node and the project's bins first. */
function stepEnv(dir: string, env: Step['env'] = {}): NodeJS.ProcessEnv {
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('MCP_REWIND_')));
  const path = [join(dir, 'node_modules/.bin'), dirname(process.execPath), process.env.PATH].join(':');
  const own = Object.fromEntries(Object.entries(env).map(([k, v]) => [k, String(v)]));
  return { ...base, CI: 'true', npm_config_update_notifier: 'false', PATH: path, ...own };
}

function bash(script: string, cwd: string, env: NodeJS.ProcessEnv): Promise<{ code: number; output: string }> {
  return new Promise((done, fail) => {
    const child = spawn('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', script], { cwd, env });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('error', fail);
    child.on('close', (code) => done({ code: code ?? 1, output }));
  });
}

describe('the pull-request workflow of docs/testing.md', () => {
  const steps = workflow().jobs.gate.steps;
  const run = (match: string): Step => steps.find((s) => s.run?.includes(match))!;

  it('runs on pull requests and has a replay, a verify, a lint and a secret-scan step', () => {
    expect(Object.keys(workflow().on)).toContain('pull_request');
    for (const command of ['npm test', 'mcp-rewind verify', 'mcp-rewind lint', 'mcp-rewind redact --scan'])
      expect(
        steps.some((s) => s.run?.includes(command)),
        command,
      ).toBe(true);
  });

  it('every run: step passes, in order, on a project with a cassette its suite recorded; a changed server and a secret fail theirs', async () => {
    const dir = await project();
    const recorded = await bash('npm test', dir, { ...stepEnv(dir), CI: '', MCP_REWIND_MODE: 'record' });
    expect(recorded.code, recorded.output).toBe(0);
    expect((await readdir(join(dir, 'cassettes/my-server'))).some((f) => f.includes('tools_call_add'))).toBe(true);

    for (const step of steps) {
      if (step.uses || step.run === 'npm ci') {
        skipping(
          `${step.uses ? 'an action' : 'no registry install: node_modules are linked'}`,
          `step ${step.uses ?? step.run}`,
        );
        continue;
      }
      const replay = step.run === 'npm test';
      // replay never starts the server: the step passes with its file gone
      if (replay) await rename(join(dir, 'server.js'), join(dir, 'server.gone'));
      const result = await bash(step.run!, dir, stepEnv(dir, step.env));
      if (replay) await rename(join(dir, 'server.gone'), join(dir, 'server.js'));
      expect(result.code, `${step.name ?? step.run}\n${result.output}`).toBe(0);
    }
    const sarif = JSON.parse(await readFile(join(dir, 'lint.sarif'), 'utf8'));
    expect(sarif.version).toBe('2.1.0');
    expect(sarif.runs[0].tool.driver.rules.length).toBeGreaterThan(10);
    expect(existsSync(join(dir, 'verify.xml'))).toBe(true);

    await writeFile(join(dir, 'server.js'), SERVER('The total is'));
    const verify = await bash(run('mcp-rewind verify').run!, dir, stepEnv(dir));
    expect(verify.code, verify.output).toBe(1);
    expect(verify.output).toContain('The total is 5');

    const entry = (await readdir(join(dir, 'cassettes/my-server'))).find((f) =>
      /^\d+ tools_call_add_\w+\.json$/.test(f),
    )!;
    const file = join(dir, 'cassettes/my-server', entry);
    const distilled = JSON.parse(await readFile(file, 'utf8'));
    distilled.result.content[0].text = `The sum is 5; deploy key ${'ghp_' + 'Qw8Er7Ty6Ui5Op4As3Df2Gh1Jk0Lz9Xc8Vb7'}`;
    await writeFile(file, JSON.stringify(distilled));
    const scan = await bash(run('redact --scan').run!, dir, stepEnv(dir));
    expect(scan.code, scan.output).toBe(1);
    expect(scan.output).toContain(`${resolve(dir, 'cassettes/my-server')}`.split('/').pop());
    expect(scan.output).toMatch(/\$\.result\.content\[0\]\.text {2}secret\.github {2}ghp_… \(40 chars\)/);
  }, 180_000);
});
