import { execFile } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InterceptList } from '../../src/shared/intercept.js';
import { InterceptService } from '../../src/main/intercept/service.js';
import { clientHome, type ClientHome } from '../helpers/client-configs.js';
import { answersOf, entryOf } from '../helpers/config-entry.js';
import { removeTempDirs, tempDir } from '../helpers/temp.js';

// Intercept as a user drives it from a terminal: the built CLI (`npm run build:cli` first) against a temporary home
// holding every client's config files in their real formats; the wrapped entries launched by a real SDK client
// exactly as the files say, against server-everything, with no app running.
const CLI = join(import.meta.dirname, '../../bin/mcp-rewind.js');
const run = promisify(execFile);

async function intercept(
  home: ClientHome,
  dataDir: string,
  ...args: string[]
): Promise<{ stdout: string; stderr: string; code: number }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [CLI, 'intercept', ...args, '--data-dir', dataDir], {
      env: { ...process.env, ...home.env },
      cwd: home.project,
    });
    return { stdout, stderr, code: 0 };
  } catch (error) {
    const e = error as { stdout: string; stderr: string; code: number };
    return { stdout: e.stdout, stderr: e.stderr, code: e.code };
  }
}

const snapshot = (home: ClientHome): Record<string, string> =>
  Object.fromEntries(
    Object.values(home.files)
      .flat()
      .map((f) => [f, readFileSync(f, 'utf8')]),
  );

describe('mcp-rewind intercept (no app running)', () => {
  let home: ClientHome;
  let dataDir: string;
  let direct: Awaited<ReturnType<typeof answersOf>>;
  beforeAll(async () => {
    home = await clientHome();
    dataDir = await tempDir('rewind-data-');
    direct = await answersOf(entryOf(home.files['claude-desktop'][0], ['mcpServers', 'everything']));
  });
  afterAll(removeTempDirs);

  it('list --json finds every client, file and server, with its transport, and changes nothing', async () => {
    const before = snapshot(home);
    const { stdout, code } = await intercept(home, dataDir, 'list', '--json');
    expect(code).toBe(0);
    const list = JSON.parse(stdout) as InterceptList;
    const targets = list.clients.flatMap((c) =>
      c.files.flatMap((f) => f.servers.map((s) => `${s.target} ${s.transport.kind} ${s.scope}`)),
    );
    expect(targets.sort()).toEqual(
      [
        'claude-desktop:everything stdio user',
        'claude-code:everything stdio user',
        'claude-code:remote http local',
        'claude-code:project-everything stdio project',
        'cursor:everything stdio user',
        'cursor:remote http user',
        'vscode:everything stdio user',
        'vscode:remote http user',
        'windsurf:everything stdio user',
        'windsurf:remote http user',
        'gemini:everything stdio user',
        'gemini:remote http user',
        'codex:everything stdio user',
        'codex:remote http user',
      ].sort(),
    );
    expect(list.clients.every((c) => c.found)).toBe(true);
    const codex = list.clients.find((c) => c.id === 'codex')!.files[0].servers.find((s) => s.name === 'everything')!;
    expect(codex.transport).toEqual({ kind: 'stdio', ...home.server });
    // credentials are not printed: a header named like one is redacted
    const gemini = list.clients.find((c) => c.id === 'gemini')!.files[0].servers.find((s) => s.name === 'remote')!;
    expect(gemini.transport).toEqual({
      kind: 'http',
      url: 'https://mcp.example.com/mcp',
      headers: { Authorization: '[REDACTED]' },
    });
    expect(stdout).not.toContain('not-a-real-token');
    expect(snapshot(home)).toEqual(before);
  });

  for (const [client, path] of [
    ['claude-desktop', ['mcpServers', 'everything']],
    ['vscode', ['servers', 'everything']],
    ['codex', ['mcp_servers', 'everything']],
  ] as const) {
    it(`${client}: wrap, then the entry as the file says gets the same answers as direct; unwrap restores the file byte for byte`, async () => {
      const file = home.files[client][0];
      const original = readFileSync(file, 'utf8');
      const wrapped = await intercept(home, dataDir, 'wrap', `${client}:everything`);
      expect(wrapped.stdout).toContain(`wrapped ${client}:everything`);
      const entry = entryOf(file, [...path]);
      expect(entry.args).toContain('--attach');
      expect(entry.env).toEqual(home.server.env); // env values untouched
      expect(existsSync(`${file}.mcp-rewind.bak`)).toBe(true);
      expect(readFileSync(`${file}.mcp-rewind.bak`, 'utf8')).toBe(original);
      // the comments of JSONC and TOML are still there
      for (const comment of original.match(/(\/\/|#) [^\n]*/g) ?? [])
        expect(readFileSync(file, 'utf8')).toContain(comment);
      const through = await answersOf(entry);
      expect(through).toEqual(direct);
      expect(through.env).toContain('value from the file');
      const listed = JSON.parse((await intercept(home, dataDir, 'list', '--json')).stdout) as InterceptList;
      const server = listed.clients
        .flatMap((c) => c.files.flatMap((f) => f.servers))
        .find((s) => s.target === `${client}:everything` && s.scope === 'user')!;
      expect(server.state).toBe('intercepted');
      expect(server.original).toMatchObject({ command: home.server.command, args: home.server.args });
      const unwrapped = await intercept(home, dataDir, 'unwrap', `${client}:everything`);
      expect(unwrapped.stdout).toContain('restored byte for byte');
      expect(readFileSync(file, 'utf8')).toBe(original);
      expect(existsSync(`${file}.mcp-rewind.bak`)).toBe(false);
    });
  }

  it('records to the folder the wrap names, with no app running', async () => {
    const file = home.files.cursor[0];
    const cassette = join(dataDir, 'cursor-cassette');
    await intercept(home, dataDir, 'wrap', 'cursor:everything', '--record', cassette);
    const entry = entryOf(file, ['mcpServers', 'everything']);
    expect(entry.args).toEqual(expect.arrayContaining(['--record', cassette]));
    expect(await answersOf(entry)).toEqual(direct);
    const files = await readdir(cassette);
    expect(files.some((f) => /tools_call_echo_/.test(f))).toBe(true);
    expect(files.some((f) => /tools_list/.test(f))).toBe(true);
    await intercept(home, dataDir, 'unwrap', 'cursor:everything');
  });

  it('a file changed by someone else after it was read is not overwritten, and says so', async () => {
    const file = home.files.windsurf[0];
    const svc = new InterceptService({ dataDir, version: '0', env: home.env, projects: [home.project] });
    const plan = await svc.plan({ action: 'wrap', client: 'windsurf', server: 'everything' });
    expect(plan.files).toHaveLength(1);
    const edited = readFileSync(file, 'utf8').replace('"mcpServers"', '"mcpServers" ');
    writeFileSync(file, edited); // the user saves the file in an editor meanwhile
    const result = await svc.apply(plan);
    expect(result.written).toEqual([]);
    expect(result.skipped.join()).toMatch(/changed since it was read.*nothing was written/);
    expect(readFileSync(file, 'utf8')).toBe(edited);
    expect(svc.ledger.read().filter((r) => r.client === 'windsurf')).toEqual([]);
  });

  it('unwrap after another change elsewhere in the file restores only the entry, and keeps the other change', async () => {
    const file = home.files.gemini[0];
    const original = readFileSync(file, 'utf8');
    await intercept(home, dataDir, 'wrap', 'gemini:everything');
    const withTheme = readFileSync(file, 'utf8').replace('"Dracula"', '"Solarized"');
    writeFileSync(file, withTheme);
    const { stdout } = await intercept(home, dataDir, 'unwrap', 'gemini:everything');
    expect(stdout).toContain('unwrapped gemini:everything');
    expect(stdout).not.toContain('byte for byte');
    expect(readFileSync(file, 'utf8')).toBe(original.replace('"Dracula"', '"Solarized"'));
  });

  it('malformed files are listed with the reason and never written', async () => {
    const bad = await clientHome();
    const desktop = bad.files['claude-desktop'][0];
    const codex = bad.files.codex[0];
    writeFileSync(desktop, '{ "mcpServers": { "x": { "command": "node", } } }'); // a trailing comma: not JSON
    writeFileSync(codex, '[mcp_servers.x]\ncommand = \n');
    const before = snapshot(bad);
    const data = await tempDir('rewind-data-');
    const list = JSON.parse((await intercept(bad, data, 'list', '--json')).stdout) as InterceptList;
    const fileOf = (id: string) => list.clients.find((c) => c.id === id)!.files[0];
    expect(fileOf('claude-desktop').error).toMatch(/not valid JSON: .* at line 1, column \d+/);
    expect(fileOf('codex').error).toMatch(/not valid TOML/);
    const wrap = await intercept(bad, data, 'wrap', 'claude-desktop');
    expect(wrap.code).toBe(1);
    expect(wrap.stdout).toMatch(/not valid JSON.*left as it is/);
    expect(snapshot(bad)).toEqual(before);
  });

  it('unwrap --all puts every file back byte for byte after wrapping every server of every client (HTTP ones through proxies the app will start)', async () => {
    const fresh = await clientHome();
    const data = await tempDir('rewind-data-');
    const before = snapshot(fresh);
    for (const client of Object.keys(fresh.files)) {
      const { code, stdout } = await intercept(fresh, data, 'wrap', client);
      expect(code, stdout).toBe(0);
    }
    const after = snapshot(fresh);
    for (const f of Object.keys(before)) if (!f.endsWith('.vscode/mcp.json')) expect(after[f], f).not.toBe(before[f]);
    // an HTTP server points at a proxy of the app on a fixed port, saved for the app's next start
    const workspace = JSON.parse(readFileSync(join(data, 'workspace.json'), 'utf8')) as {
      proxies: Array<{ config: { port: number; upstreamUrl: string } }>;
    };
    expect(workspace.proxies.length).toBe(6);
    const cursor = entryOf(fresh.files.cursor[0], ['mcpServers', 'remote']) as { url?: string };
    expect(workspace.proxies.map((p) => `http://127.0.0.1:${p.config.port}/mcp`)).toContain(cursor.url);
    // what the data folder keeps to undo the changes holds no env value and no header
    const ledger = readFileSync(join(data, 'intercept.json'), 'utf8');
    expect(ledger).not.toContain('value from the file');
    expect(ledger).not.toContain('not-a-real-token');
    const { stdout, code } = await intercept(fresh, data, 'unwrap', '--all');
    expect(code, stdout).toBe(0);
    expect(snapshot(fresh)).toEqual(before);
    expect(JSON.parse(readFileSync(join(data, 'intercept.json'), 'utf8')).records).toEqual([]);
    expect(JSON.parse(readFileSync(join(data, 'workspace.json'), 'utf8')).proxies).toEqual([]);
    for (const f of Object.keys(before)) expect(existsSync(`${f}.mcp-rewind.bak`), f).toBe(false);
  });
});
