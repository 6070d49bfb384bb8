import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type * as CassettesModule from '../../src/renderer/src/stores/cassettes.js';
import { copyOf } from '../helpers/temp.js';
import { connectStores } from '../../src/renderer/src/stores/connection.js';
import { useSettings } from '../../src/renderer/src/stores/settings.js';
import { browserShell, closeAll, closers, eventually, mcpClient, textOf } from './shell.js';

/**
 * The Cassettes store over the browser shell (startUi: AppController + the real handler table) on a copy of a
 * committed cassette folder.
 * The recent folders are the settings' one list (settings.json), kept by the engine when a folder is opened.
 */
const FIXTURE = fileURLToPath(new URL('../fixtures/mcp-rewind-cache', import.meta.url));
const ECHO = '5 tools_call_echo_cbbbdcd27692344d.json';

let store: typeof CassettesModule;
const state = () => store.useCassettes.getState();

beforeAll(async () => {
  store = await import('../../src/renderer/src/stores/cassettes.js');
});
const recent = (): string[] | undefined => useSettings.getState().settings?.recentFolders;
const initial = () => store.useCassettes.getInitialState();
beforeEach(() => store.useCassettes.setState(initial(), true));
afterEach(closeAll);

async function attached(): Promise<{ dir: string; api: Awaited<ReturnType<typeof browserShell>>['api'] }> {
  const { api } = await browserShell();
  closers.push(connectStores(api));
  await api.call('settings.set', {
    recentFolders: ['/r/0', '/r/1', '/r/2', '/r/3', '/r/4', '/r/5', '/r/6', '/r/7', '/r/8'],
  });
  return { dir: await copyOf(FIXTURE), api };
}

describe('cassettes store', () => {
  it('refuses entry commands before a folder is open, and a blank folder', async () => {
    await attached();
    await expect(state().duplicate(ECHO)).rejects.toThrow('open a cassette folder first');
    await expect(state().save('{}')).rejects.toThrow('select an entry first');
    await expect(state().open('   ')).rejects.toThrow('give a cassette folder');
    await state().refresh(); // nothing open: nothing to do
    expect(state()).toMatchObject({ entries: [], loading: false });
  });

  it('opens a folder (remembered first in the settings, no duplicates, at most 10), shows the engine refusing a missing one', async () => {
    const { dir } = await attached();
    await expect(state().open(join(dir, 'nope'))).rejects.toThrow(/dir: no such folder/);
    expect(state()).toMatchObject({ loading: false, error: expect.stringMatching(/dir: no such folder/) });

    await state().open(`  ${dir}  `);
    expect(state()).toMatchObject({ dir, loading: false, error: undefined });
    expect(state().entries.map((e) => e.file)).toEqual([
      '1 initialize.json',
      '3 tools_list.json',
      '4 resources_list.json',
      ECHO,
      '6 tools_call_add_206f7b5543e6f2ef.json',
    ]);
    expect(state().entries.find((e) => e.file === ECHO)).toMatchObject({
      n: 5,
      tool: 'echo',
      arguments: { text: 'hello' },
      preview: 'hello from mcp-rewind',
      hits: 0,
    });
    await eventually(() => recent()?.[0] === dir, 'the settings event');
    expect(recent()).toEqual([dir, '/r/0', '/r/1', '/r/2', '/r/3', '/r/4', '/r/5', '/r/6', '/r/7', '/r/8']);

    await state()
      .open('/r/3')
      .catch(() => {}); // a failed open is not remembered
    await state().open(dir);
    expect(recent()?.filter((d) => d === dir)).toHaveLength(1);
    expect(recent()?.[0]).toBe(dir);
    await state().open(await copyOf(FIXTURE));
    await eventually(() => recent()?.[1] === dir, 'the next open');
    expect(recent()).toHaveLength(10); // the oldest went
  });

  it('selects and saves an entry (the engine validates), keeps the selection when the same folder is reopened', async () => {
    const { dir } = await attached();
    await state().open(dir);
    await state().select(ECHO);
    expect(state().selected).toBe(ECHO);
    expect(JSON.parse(state().text!)).toMatchObject({
      arguments: { text: 'hello' },
      result: { content: [{ text: 'hello from mcp-rewind' }] },
    });

    const edited = JSON.stringify(
      { arguments: { text: 'hello' }, result: { content: [{ type: 'text', text: 'edited' }] } },
      null,
      2,
    );
    await state().save(edited);
    expect(state().text).toBe(edited);
    expect(state().entries.find((e) => e.file === ECHO)?.preview).toBe('edited');
    expect(await readFile(join(dir, ECHO), 'utf8')).toBe(edited);

    await expect(state().save('{ not json')).rejects.toThrow(/^text: not valid JSON/);
    expect(state().text).toBe(edited);
    expect(await readFile(join(dir, ECHO), 'utf8')).toBe(edited);

    await state().open(dir);
    expect(state()).toMatchObject({ selected: ECHO, text: edited });
    await state().select(undefined);
    expect(state()).toMatchObject({ selected: undefined, text: undefined });
    await state().select('9 missing.json');
    expect(state().error).toMatch(/no entry "9 missing.json"/);
    expect(state().text).toBeUndefined();

    // another folder drops the selection
    await state().select(ECHO);
    await state().open(await copyOf(FIXTURE));
    expect(state()).toMatchObject({ selected: undefined, text: undefined });
  });

  it('duplicates, renames (the selection follows) and removes entries', async () => {
    const { dir } = await attached();
    await state().open(dir);
    const dup = await state().duplicate(ECHO);
    expect(dup).toMatchObject({
      n: 7,
      key: 'tools_call_echo_cbbbdcd27692344d',
      file: '7 tools_call_echo_cbbbdcd27692344d.json',
    });
    expect(state().entries.map((e) => e.n)).toEqual([1, 3, 4, 5, 6, 7]);

    await state().select(dup.file);
    const renamed = await state().rename(dup.file, 'my copy');
    expect(renamed).toMatchObject({ n: 7, file: `7 ${renamed.key}.json` });
    expect(state().selected).toBe(renamed.file);
    expect(state().entries.map((e) => e.file)).toContain(renamed.file);
    expect(state().entries.map((e) => e.file)).not.toContain(dup.file);
    await expect(state().rename(renamed.file, '  ')).rejects.toThrow(/key: give the new key/);

    await state().remove(ECHO); // not the selected one
    expect(state().selected).toBe(renamed.file);
    await state().remove(renamed.file);
    expect(state()).toMatchObject({ selected: undefined, text: undefined });
    expect(state().entries.map((e) => e.n)).toEqual([1, 3, 4, 6]);
    await expect(state().remove(ECHO)).rejects.toThrow(/no entry/);
  });

  it('refresh shows the hits of a replay proxy serving the folder', async () => {
    const { dir, api } = await attached();
    await state().open(dir);
    const replay = await api.call('proxies.create', { mode: 'replay', cacheDir: dir });
    const c = await mcpClient(replay.url!);
    expect(textOf(await c.client.callTool({ name: 'echo', arguments: { text: 'hello' } }))).toBe(
      'hello from mcp-rewind',
    );
    await expect
      .poll(async () => {
        await state().refresh();
        return state().entries.find((e) => e.file === ECHO)?.hits;
      })
      .toBe(1);
    expect(state().error).toBeUndefined();
  });
});
