/**
 * One mode vocabulary and one proxy configuration schema (issue 20, step 2). What a mode does is one table
 * (src/shared/modes.ts); what a proxy's configuration needs is one zod schema (src/shared/proxy-config.ts), and its
 * rule "a mode that forwards needs an upstream" reaches the user in one sentence wherever a proxy is made: the built
 * CLI, `serve`'s REST API, the app's proxies API, and the New proxy form's field errors.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { MODE_TRAITS, MODES, type Mode } from '../src/shared/modes.js';
import { MAX_COMMAND_CHARS, missingUpstream, ProxyConfigSchema } from '../src/shared/proxy-config.js';
import { draftConfig, draftParts, EMPTY_DRAFT } from '../src/renderer/src/models/proxy-draft.js';
import { app, call, cleanup as cleanupApp, failure } from './api/harness.js';
import { cleanup as cleanupServe, instance, type ErrorBody } from './serve/harness.js';
import { runCli } from './helpers/hostile.js';
import { tempDir } from './helpers/temp.js';

// the app first: its controller writes into its data folder until it is closed (both cleanups remove the temp folders)
afterEach(async () => {
  await cleanupApp();
  await cleanupServe();
});

const forwarding = MODES.filter((mode) => MODE_TRAITS[mode].forwards);
/** the CLI's flags for a mode, with no upstream given (hybrid is --replay with an upstream: it cannot lack one) */
const CLI_FLAGS: Partial<Record<Mode, string[]>> = { record: [], 'proxy-only': ['--proxy-only'] };

describe('the mode table', () => {
  it('says what each mode does with an upstream and a cassette', () => {
    expect(MODE_TRAITS).toEqual({
      record: {
        forwards: true,
        replays: false,
        records: true,
        usesCassette: true,
        needsExistingCassette: false,
        cassetteOnly: false,
      },
      replay: {
        forwards: false,
        replays: true,
        records: false,
        usesCassette: true,
        needsExistingCassette: true,
        cassetteOnly: true,
      },
      hybrid: {
        forwards: true,
        replays: true,
        records: true,
        usesCassette: true,
        needsExistingCassette: false,
        cassetteOnly: false,
      },
      'proxy-only': {
        forwards: true,
        replays: false,
        records: false,
        usesCassette: false,
        needsExistingCassette: false,
        cassetteOnly: false,
      },
    });
  });

  it('decides the New proxy form’s parts: an upstream where the mode forwards, a cassette where it has one, a timing where it replays, Strict where it has only the cassette', () => {
    for (const mode of MODES) {
      const traits = MODE_TRAITS[mode];
      expect(draftParts(mode), mode).toEqual({
        upstream: traits.forwards,
        cassette: traits.usesCassette,
        existingCassette: traits.needsExistingCassette,
        replayTiming: traits.replays,
        strict: traits.cassetteOnly,
      });
    }
  });
});

describe('a mode that forwards needs an upstream: one sentence wherever a proxy is made', () => {
  it.each(forwarding)('%s: the New proxy form, the app’s API, serve and the CLI say the same', async (mode) => {
    const sentence = missingUpstream(mode);
    expect(sentence).toContain(mode);

    // the form: beside the source field shown (the URL, or the stdio command)
    expect(draftConfig({ ...EMPTY_DRAFT, mode }).issues).toEqual({ upstreamUrl: sentence });
    expect(draftConfig({ ...EMPTY_DRAFT, mode, source: 'command' }).issues).toEqual({ upstreamCommand: sentence });

    // the app's proxies API: under the form's label, and nothing is made
    const { api } = await app();
    expect(await failure(call(api, 'proxies.create', { mode } as never))).toBe(`Upstream URL: ${sentence}`);
    expect(await call(api, 'proxies.list', {})).toEqual([]);

    // serve: 400 under the REST body's field, and no session
    const { api: rest } = await instance();
    const answer = await rest.request<ErrorBody>('POST', '/api/sessions', { mode, cassette: await tempDir() });
    expect(answer.status).toBe(400);
    expect(answer.body.message).toBe(`upstream: ${sentence}`);
    expect((await rest.list()).sessions).toEqual([]);

    // the built CLI: a usage error (exit 2) under its flag, and nothing written
    const flags = CLI_FLAGS[mode];
    if (flags) {
      const dir = await tempDir();
      const run = await runCli([...flags, '--cache', `${dir}/cassette`]);
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr).toContain(`--url: ${sentence}`);
    }
  });

  it('replay needs none: the form asks for no upstream, the app and serve accept it', async () => {
    expect(draftConfig({ ...EMPTY_DRAFT, mode: 'replay' }).issues).toEqual({});
    const { api } = await app();
    const info = await call(api, 'proxies.create', { mode: 'replay', cacheDir: await tempDir() } as never);
    expect(info.config.mode).toBe('replay');
    const { api: rest } = await instance();
    const created = await rest.create({ mode: 'replay', cassette: await tempDir() });
    expect(created.session_id).toEqual(expect.any(String));
  });
});

describe('the OAuth client id is a field of the one schema (issue 24)', () => {
  it('the form sends it where the mode forwards to a URL, never in replay or for a command; the schema names the field', async () => {
    const url = 'http://127.0.0.1:9/mcp';
    for (const mode of forwarding)
      expect(
        draftConfig({ ...EMPTY_DRAFT, mode, upstreamUrl: url, oauthClientId: ' app-1 ' }).config.oauth,
        mode,
      ).toEqual({ clientId: 'app-1' });
    expect(draftConfig({ ...EMPTY_DRAFT, mode: 'replay', oauthClientId: 'app-1' }).config.oauth).toBeUndefined();
    expect(
      draftConfig({ ...EMPTY_DRAFT, source: 'command', upstreamCommand: 'node s.js', oauthClientId: 'app-1' }).config
        .oauth,
    ).toBeUndefined();

    const tooLong = draftConfig({ ...EMPTY_DRAFT, upstreamUrl: url, oauthClientId: 'x'.repeat(1001) }).issues;
    expect(tooLong).toEqual({ oauth: expect.stringContaining('a client id of at most 1,000 characters') });
    // the app's proxies API says the same under the form's label, and makes nothing
    const { api } = await app();
    const config = { mode: 'proxy-only', upstreamUrl: url, oauth: { clientId: 'x'.repeat(1001) } };
    expect(await failure(call(api, 'proxies.create', config as never))).toBe(`OAuth client ID: ${tooLong.oauth}`);
    expect(await call(api, 'proxies.list', {})).toEqual([]);
  });
});

describe('the stdio command', () => {
  it('a command line over the limit is refused in the words of the form, the limit written as the locale writes it', () => {
    const parsed = ProxyConfigSchema.safeParse({
      mode: 'proxy-only',
      upstreamCommand: 'x'.repeat(MAX_COMMAND_CHARS + 1),
    });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0].message).toBe(
      `a command line of at most ${MAX_COMMAND_CHARS.toLocaleString('en')} characters`,
    );
  });
});
