/**
 * `mcp-rewind lint` and `mcp-rewind cost` as a user runs them (the built CLI, `npm run build:cli` first), on the
 * committed fixture cassette and on a copy edited by hand to break a rule and to grow a description.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadTokenCounter } from '../../src/main/engine/insight/tokens.js';
import { runCli } from '../helpers/hostile.js';
import { copyOf, removeTempDirs } from '../helpers/temp.js';

const FIXTURE = 'test/fixtures/mcp-rewind-cache';
const LIST = '3 tools_list.json';
afterEach(removeTempDirs);

/** A copy of the fixture whose tool list was edited by hand. */
async function edited(change: (tools: Array<Record<string, unknown>>) => void): Promise<string> {
  const dir = await copyOf(FIXTURE);
  const list = JSON.parse(await readFile(join(dir, LIST), 'utf8')) as { tools: Array<Record<string, unknown>> };
  change(list.tools);
  await writeFile(join(dir, LIST), JSON.stringify(list, null, 2));
  return dir;
}

describe('mcp-rewind lint', () => {
  it('passes a conforming cassette (exit 0) and says what it checked', async () => {
    const run = await runCli(['lint', '--cache', FIXTURE]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/mcp-rewind-cache: \d+ exchanges checked, 0 errors, 0 warnings, 0 notes/);
  });

  it('fails a cassette that breaks a rule (exit 1), in text, JSON and JUnit', async () => {
    const dir = await edited((tools) => {
      tools[0].inputSchema = { type: 'string' };
      tools[1].name = 'echo';
    });
    const text = await runCli(['lint', '--cache', dir]);
    expect(text.code).toBe(1);
    expect(text.stdout).toContain('tool.input-schema  response.result.tools[0].inputSchema');
    expect(text.stdout).toContain('tool.name-duplicate  response.result.tools[1].name');
    const json = await runCli([
      'lint',
      '--cache',
      dir,
      '--json',
      '--junit',
      join(dir, '..', `${dir.split('/').pop()}-lint.xml`),
    ]);
    expect(json.code).toBe(1);
    const ids = (
      JSON.parse(json.stdout) as { exchanges: Array<{ problems: Array<{ id: string; spec: string }> }> }
    ).exchanges.flatMap((x) => x.problems.map((p) => p.id));
    expect(ids).toEqual(expect.arrayContaining(['tool.input-schema', 'tool.name-duplicate']));
    const junit = await readFile(join(dir, '..', `${dir.split('/').pop()}-lint.xml`), 'utf8');
    expect(junit).toMatch(/<testsuites name="mcp-rewind lint" tests="\d+" failures="1">/);
    expect(junit).toContain('<failure type="tool.input-schema"');
  });

  it('refuses a missing cassette as a usage error (exit 2)', async () => {
    const run = await runCli(['lint', '--cache', '/nonexistent/cassette']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--cache \/nonexistent\/cassette does not exist/);
  });
});

describe('mcp-rewind cost', () => {
  it('sums the definitions before the first call with o200k_base, and diffs a recording against another', async () => {
    const count = await loadTokenCounter();
    const list = JSON.parse(await readFile(join(FIXTURE, LIST), 'utf8')) as { tools: unknown[] };
    const run = await runCli(['cost', '--cache', FIXTURE, '--json']);
    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout) as {
      lists: { tool: number };
      tokenizer: string;
      largestDescriptions: Array<{ name: string }>;
    };
    expect(report.lists.tool).toBe(list.tools.reduce((sum: number, t) => sum + count(JSON.stringify(t)), 0));
    expect(report.tokenizer).toMatch(/^o200k_base \(gpt-tokenizer /);

    const grown = await edited(
      (tools) => void (tools[1].description = 'Adds two numbers, with a very long explanation. '.repeat(10)),
    );
    const diff = await runCli(['cost', '--cache', FIXTURE, '--against', grown]);
    expect(diff.code, diff.stderr).toBe(0);
    expect(diff.stdout).toMatch(/against mcp-rewind-cache: \+[\d,]+ tokens before the first call/);
    expect(diff.stdout).toMatch(/\+[\d,]+\s+tool add \(\d+ → \d+\)/);
  });
});
