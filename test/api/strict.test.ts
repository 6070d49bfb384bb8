/**
 * The app's per-proxy strict switch (the proxy configuration's `strict`, the New proxy dialog's Strict box): kept with
 * the proxy; a replay proxy with it answers a miss with the closest recorded key and what differs, one without it as
 * before (the cassette's miss answer).
 */
import { cp } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { proxyConfigIssues } from '../../src/shared/proxy-config.js';
import { REPO } from '../helpers/hostile.js';
import { tempDir } from '../helpers/temp.js';
import { app, call, cleanup, client } from './harness.js';

afterEach(cleanup);

async function fixture(): Promise<string> {
  const dir = await tempDir();
  await cp(join(REPO, 'test/fixtures/mcp-rewind-cache'), dir, { recursive: true });
  return dir;
}

const miss = (c: Awaited<ReturnType<typeof client>>): Promise<string> =>
  c.client.callTool({ name: 'echo', arguments: { text: 'Hello' } }).then(
    (result) => JSON.stringify(result),
    (error: Error) => error.message,
  );

describe('api: a replay proxy with Strict', () => {
  it('is checked with the form’s label', () => {
    expect(proxyConfigIssues({ mode: 'replay', cacheDir: '/x', strict: 'yes' })).toEqual({ strict: 'on or off' });
    expect(proxyConfigIssues({ mode: 'replay', cacheDir: '/x', strict: true })).toEqual({});
  });

  it('keeps the switch, and answers a miss with the closest recorded key and the difference; without it, as before', async () => {
    const { api } = await app();
    const strict = await call(api, 'proxies.create', {
      mode: 'replay',
      cacheDir: await fixture(),
      strict: true,
    } as never);
    expect(strict.config).toMatchObject({ strict: true });
    const s = await client(strict.url as string);
    const strictAnswer = await miss(s);
    expect(strictAnswer).toContain(
      'closest recorded tools_call_echo_cbbbdcd27692344d (arguments.text: "hello" recorded, "Hello" asked)',
    );
    expect(
      await s.client.listPrompts().then(
        () => 'answered',
        (error: Error & { code?: number }) => error.code,
      ),
    ).toBe(-32004);

    const plain = await call(api, 'proxies.create', { mode: 'replay', cacheDir: await fixture() } as never);
    const p = await client(plain.url as string);
    expect(await miss(p)).not.toContain('closest recorded');
    expect(await p.client.listPrompts()).toEqual({ prompts: [] });
  });
});
