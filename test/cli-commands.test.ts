/**
 * The CLI's subcommands come from one table (src/main/cli/commands.ts): `mcp-rewind --help` lists exactly its rows,
 * each row dispatches to its own command (its --help is its own program's), and docs/cli.md's "Commands" table names
 * the same commands. The built CLI runs as a real process (`npm run build:cli` first).
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { SUBCOMMANDS } from '../src/main/cli/commands.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BIN = path.join(REPO, 'bin/mcp-rewind.js');

function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) =>
    execFile(process.execPath, [BIN, ...args], { cwd: REPO, timeout: 20_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    ),
  );
}

/** the names in the "Commands:" section of commander's help */
function helpCommands(help: string): string[] {
  const section = help.split(/^Commands:$/m)[1] ?? '';
  return [...section.matchAll(/^ {2}([a-z][a-z-]*)\b/gm)].map((m) => m[1]);
}

/** the names in docs/cli.md's "## Commands" table */
function docsCommands(): string[] {
  const page = readFileSync(path.join(REPO, 'docs/cli.md'), 'utf8');
  const section = page.split(/^## Commands$/m)[1]?.split(/^## /m)[0] ?? '';
  return [...section.matchAll(/^\| `([a-z][a-z-]*)` \|/gm)].map((m) => m[1]);
}

beforeAll(() => {
  if (!existsSync(path.join(REPO, 'dist/main/cli.js')))
    throw new Error('dist/main/cli.js is missing: run `npm run build:cli` (npm test does it)');
});

describe('subcommands: one table for help, dispatch and docs', () => {
  const names = SUBCOMMANDS.map((c) => c.name);

  it('--help lists every row of the table, in its order, with its summary', async () => {
    const { code, stdout } = await run(['--help']);
    expect(code).toBe(0);
    expect(helpCommands(stdout)).toEqual(names);
    const flat = stdout.replace(/\s+/g, ' ');
    for (const command of SUBCOMMANDS) expect(flat).toContain(command.summary);
  });

  it("docs/cli.md's Commands table names the same commands, in the same order", () => {
    expect(docsCommands()).toEqual(names);
  });

  it("each row runs its own command: `<name> --help` is that command's usage, exit 0", async () => {
    const results = await Promise.all(names.map((name) => run([name, '--help'])));
    results.forEach(({ code, stdout, stderr }, i) => {
      expect(code, `${names[i]}: ${stderr}`).toBe(0);
      expect(stdout + stderr).toContain(`Usage: mcp-rewind ${names[i]}`);
    });
  });

  it('a command after a proxy flag is refused in one line; words after -- stay the upstream', async () => {
    const misplaced = await run(['--verbose', 'lint']);
    expect(misplaced.code).toBe(2);
    expect(misplaced.stderr.trim().split('\n')).toEqual([
      'mcp-rewind: "lint" is a command: give it first (mcp-rewind lint …)',
    ]);
    // `-- mcp run server.py` is an upstream named mcp (the Python SDK's CLI), not the mcp command
    const upstream = await run(['--proxy-only', '--', 'mcp-rewind-no-such-server', 'mcp']);
    expect(upstream.code).toBe(1);
    expect(upstream.stderr).toContain('upstream mcp-rewind-no-such-server mcp (stdio) did not answer');
    const named = await run(['--proxy-only', '--', 'mcp', 'run', 'server.py']);
    expect(named.stderr).not.toContain('Usage: mcp-rewind mcp');
    expect(named.stderr).toContain('upstream mcp run server.py (stdio)');
  });
});
