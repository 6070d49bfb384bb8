/**
 * Issue 35 item 5: the Intercept view looks in folders the user adds (a project, another home), as `--project` does
 * in the CLI: checked when added, kept across a restart, shown, removable; a wrap writes only inside them.
 */
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { InterceptList } from '../../src/shared/intercept.js';
import { AppController } from '../../src/main/api/app-controller.js';
import { createApiHandlers } from '../../src/main/api/handlers.js';
import { app, call, cleanup, failure, keep } from '../api/harness.js';
import { tempDir } from '../helpers/temp.js';

afterEach(cleanup);

const STDIO = { command: process.execPath, args: ['server.js'] };
const filesOf = (list: InterceptList, client: string): string[] =>
  list.clients.find((c) => c.id === client)?.files.map((f) => f.path) ?? [];

async function folders(): Promise<{ home: string; project: string; cursorFile: string; projectFile: string }> {
  const home = await tempDir('rewind-other-home-');
  const project = await tempDir('rewind-project-');
  const cursorFile = join(home, '.cursor', 'mcp.json');
  const projectFile = join(project, '.mcp.json');
  await mkdir(join(home, '.cursor'), { recursive: true });
  await writeFile(cursorFile, JSON.stringify({ mcpServers: { notes: STDIO } }, null, 2));
  await writeFile(projectFile, JSON.stringify({ mcpServers: { 'project-tools': STDIO } }, null, 2));
  return { home, project, cursorFile, projectFile };
}

describe('Intercept: folders to look in', () => {
  it('a folder must exist and be a folder, given by its full path; nothing is kept when refused', async () => {
    const t = await app();
    const { cursorFile } = await folders();
    expect(await failure(call(t.api, 'intercept.addFolder', { path: 'work/project', kind: 'project' }))).toMatch(
      /^path: give the folder's full path/,
    );
    expect(await failure(call(t.api, 'intercept.addFolder', { path: '/no/such/folder', kind: 'home' }))).toBe(
      'path: /no/such/folder: no such folder',
    );
    expect(await failure(call(t.api, 'intercept.addFolder', { path: cursorFile, kind: 'project' }))).toBe(
      `path: ${cursorFile}: not a folder`,
    );
    expect(await failure(call(t.api, 'intercept.addFolder', { path: '/tmp', kind: 'elsewhere' } as never))).toMatch(
      /kind/,
    );
    expect((await call(t.api, 'intercept.list', {})).folders).toEqual([]);
  });

  it('reads a project’s own files and another home’s user files, keeps the folders across a restart, removes one', async () => {
    const t = await app();
    const { home, project, cursorFile, projectFile } = await folders();
    const before = await call(t.api, 'intercept.list', {});
    expect(filesOf(before, 'cursor')).not.toContain(cursorFile);
    await call(t.api, 'intercept.addFolder', { path: home, kind: 'home' });
    const list = await call(t.api, 'intercept.addFolder', { path: `${project}/`, kind: 'project' });
    expect(list.folders).toEqual([
      { path: home, kind: 'home' },
      { path: project, kind: 'project' },
    ]);
    expect(filesOf(list, 'cursor')).toContain(cursorFile);
    expect(filesOf(list, 'claude-code')).toContain(projectFile);
    const servers = list.clients.flatMap((c) => c.files.flatMap((f) => f.servers));
    expect(servers.find((s) => s.target === 'cursor:notes')?.scope).toBe('user');
    expect(servers.find((s) => s.target === 'claude-code:project-tools')).toMatchObject({ scope: 'project', project });

    // kept: a new app on the same data folder lists them again
    const controller = keep(new AppController({ dataDir: t.dataDir, log: () => {} }));
    const again = createApiHandlers(controller, { shell: 'browser', version: '0.0.0-test' });
    expect((await call(again, 'intercept.list', {})).folders).toEqual(list.folders);

    // a folder that went away is listed with its problem, not read
    await rm(home, { recursive: true, force: true });
    const gone = await call(again, 'intercept.list', {});
    expect(gone.folders?.[0]).toEqual({ path: home, kind: 'home', problem: 'no such folder' });
    expect(filesOf(gone, 'cursor')).not.toContain(cursorFile);

    const removed = await call(again, 'intercept.removeFolder', { path: home });
    expect(removed.folders).toEqual([{ path: project, kind: 'project' }]);
    expect(await failure(call(again, 'intercept.removeFolder', { path: home }))).toMatch(/is not a folder looked in/);
  });

  it('a wrap of a server found in an added folder writes that folder’s file only', async () => {
    const t = await app();
    const { home, project, cursorFile, projectFile } = await folders();
    await call(t.api, 'intercept.addFolder', { path: home, kind: 'home' });
    await call(t.api, 'intercept.addFolder', { path: project, kind: 'project' });
    const cursorBefore = await readFile(cursorFile, 'utf8');
    const plan = await call(t.api, 'intercept.plan', {
      action: 'wrap',
      client: 'claude-code',
      server: 'project-tools',
    });
    expect(plan.changes.map((c) => c.path)).toEqual([projectFile]);
    const result = await call(t.api, 'intercept.apply', { planId: plan.planId });
    expect(result.written.map((w) => w.path)).toEqual([projectFile]);
    expect(await readFile(projectFile, 'utf8')).toContain('--attach');
    expect(await readFile(cursorFile, 'utf8')).toBe(cursorBefore);
  });
});
