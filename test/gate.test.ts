/**
 * The CI gate (issue 33, item 4) as a user runs it — the built CLI (`npm run build:cli` first) on cassettes recorded
 * from real servers: lint, diff and redact --scan with stable rule ids, `--fail-on` tiers, and SARIF 2.1.0 whose
 * results point at the cassette files; redact --scan finds the secrets a recording kept and never prints one whole.
 */
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { lintGateRules } from '../src/shared/gate/rule-catalog.js';
import { diffGateRules } from '../src/shared/gate/diff-rules.js';
import { secretGateRules } from '../src/shared/gate/secret-rules.js';
import type { GateRule } from '../src/shared/gate/levels.js';
import { connectClient } from './fixtures/client.js';
import { startSdkServer } from './fixtures/sdk-server.js';
import { runCli } from './helpers/hostile.js';
import { recordThrough } from './helpers/recording.js';
import { recordRelease } from './helpers/release-cassettes.js';
import { removeTempDirs, tempDir } from './helpers/temp.js';

afterEach(removeTempDirs);

interface SarifResult {
  ruleId: string;
  ruleIndex?: number;
  level: string;
  message: { text: string };
  locations: Array<{
    physicalLocation: { artifactLocation: { uri: string } };
    logicalLocations?: Array<{ fullyQualifiedName: string }>;
  }>;
}

/**
 * The SARIF 2.1.0 shape code scanning needs, checked: version and $schema, one run whose driver names every rule
 * of the command (unique ids, each with a level), and results whose ruleId/ruleIndex name one of them, whose level
 * is SARIF's, and whose location is a relative URI of a file that exists under `root`. Returns the results with
 * their files resolved.
 */
function checkSarif(text: string, rules: GateRule[], root: string): Array<SarifResult & { file: string }> {
  const log = JSON.parse(text);
  expect(log.version).toBe('2.1.0');
  expect(log.$schema).toMatch(/sarif-schema-2\.1\.0\.json$/);
  expect(log.runs).toHaveLength(1);
  const driver = log.runs[0].tool.driver;
  expect(driver.name).toBe('mcp-rewind');
  const ids = driver.rules.map((r: { id: string }) => r.id);
  expect(ids).toEqual(rules.map((r) => r.id));
  expect(new Set(ids).size).toBe(ids.length);
  for (const r of driver.rules) expect(['error', 'warning', 'note']).toContain(r.defaultConfiguration.level);
  return (log.runs[0].results as SarifResult[]).map((r) => {
    expect(ids).toContain(r.ruleId);
    expect(ids[r.ruleIndex!]).toBe(r.ruleId);
    expect(['error', 'warning', 'note']).toContain(r.level);
    expect(r.message.text.length).toBeGreaterThan(0);
    const uri = r.locations[0].physicalLocation.artifactLocation.uri;
    expect(uri).not.toMatch(/^(\/|file:)|\s/); // relative to where it ran, percent-encoded
    const file = resolve(root, decodeURIComponent(uri));
    expect(existsSync(file), file).toBe(true);
    return { ...r, file };
  });
}

describe('diff as a gate', () => {
  it('SARIF: each change one result with its rule, on the file it rests on (B, or A for what B lost)', async () => {
    const root = await tempDir();
    const [a, b] = [await recordRelease(1, join(root, 'v1')), await recordRelease(2, join(root, 'v2'))];
    const run = await runCli(['diff', a, b, '--format', 'sarif'], root);
    expect(run.code).toBe(1);
    const results = checkSarif(run.stdout, diffGateRules(), root);
    const text = (await runCli(['diff', a, b], root)).stdout;
    const printed = text.split('\n').filter((l) => /^ {2}(BREAKING|compatible|added|removed|changed) /.test(l));
    expect(results).toHaveLength(printed.length); // one classification: a result per printed line
    const removed = results.find((r) => r.ruleId === 'diff.tool-removed')!;
    expect(removed).toMatchObject({ level: 'error', message: { text: 'fail: removed' } });
    expect(removed.file).toMatch(/\/v1\/\d+ tools_list\.json$/);
    const narrowed = results.find((r) => r.message.text.includes('type narrowed'))!;
    expect(narrowed).toMatchObject({ ruleId: 'diff.input-narrowed', level: 'error' });
    expect(narrowed.file).toMatch(/\/v2\/\d+ tools_list\.json$/);
    expect(narrowed.locations[0].logicalLocations?.[0].fullyQualifiedName).toBe('add.inputSchema.properties.a.type');
    const echo = results.find((r) => r.ruleId === 'diff.answer-changed' && r.message.text.includes('echo'))!;
    expect(echo).toMatchObject({ level: 'warning' });
    expect(echo.file).toMatch(/\/v2\/\d+ tools_call_echo_\w+\.json$/);
    expect(results.find((r) => r.ruleId === 'diff.key-removed')?.file).toMatch(/\/v1\/\d+ tools_call_fail_\w+\.json$/);
  });

  it('--fail-on: a changed answer alone is a warning — exit 0 under error/breaking, 1 under warning; never exits 0', async () => {
    const root = await tempDir();
    const a = await recordRelease(1, join(root, 'a'));
    const b = await recordRelease(1, join(root, 'b'));
    const echo = (await import('node:fs')).readdirSync(b).find((n) => /^\d+ tools_call_echo_\w+\.json$/.test(n))!;
    const entry = JSON.parse(await readFile(join(b, echo), 'utf8'));
    entry.result.content[0].text = 'echo: changed by hand';
    await writeFile(join(b, echo), JSON.stringify(entry));
    const json = JSON.parse((await runCli(['diff', a, b, '--json'])).stdout);
    expect(json.findings.map((f: { rule: string; level: string }) => [f.rule, f.level])).toEqual([
      ['diff.answer-changed', 'warning'],
    ]);
    for (const [failOn, code] of [
      [undefined, 0],
      ['error', 0],
      ['breaking', 0],
      ['warning', 1],
      ['note', 1],
      ['never', 0],
    ] as const) {
      const run = await runCli(['diff', a, b, ...(failOn ? ['--fail-on', failOn] : [])]);
      expect(run.code, `--fail-on ${failOn}`).toBe(code);
    }
    const breaking = await recordRelease(2, join(root, 'c'));
    expect((await runCli(['diff', a, breaking, '--fail-on', 'never'])).code).toBe(0);
    const bad = await runCli(['diff', a, b, '--fail-on', 'sometimes']);
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim().split('\n')).toEqual([
      'mcp-rewind: --fail-on sometimes: expected one of error, breaking, warning, note, never',
    ]);
  });
});

describe('lint as a gate', () => {
  it('a warning passes by default and fails under --fail-on warning; SARIF points at the entry file and the JSON path', async () => {
    const root = await tempDir();
    const cassette = await recordRelease(1, join(root, 'cassette'), 'proxy');
    const text = await runCli(['lint', '--cache', cassette]);
    expect(text.code, text.stdout).toBe(0);
    expect(text.stdout).toMatch(/warning {2}tool\.name-invalid {2}response\.result\.tools\[\d\]\.name/);
    expect((await runCli(['lint', '--cache', cassette, '--fail-on', 'warning'])).code).toBe(1);
    expect((await runCli(['lint', '--cache', cassette, '--fail-on', 'error'])).code).toBe(0);
    const sarif = await runCli(['lint', '--cache', cassette, '--format', 'sarif', '--fail-on', 'warning'], root);
    expect(sarif.code).toBe(1);
    const results = checkSarif(sarif.stdout, lintGateRules(), root);
    const invalid = results.find((r) => r.ruleId === 'tool.name-invalid')!;
    expect(invalid.level).toBe('warning');
    expect(invalid.file).toMatch(/\/cassette\/\d+ tools_list\.json$/);
    expect(invalid.locations[0].logicalLocations?.[0].fullyQualifiedName).toMatch(
      /^response\.result\.tools\[\d\]\.name$/,
    );
  });

  it('an error fails under every tier but never; --format and --json together are refused', async () => {
    const root = await tempDir();
    const cassette = await recordRelease(1, join(root, 'cassette'), 'proxy');
    const list = (await import('node:fs')).readdirSync(cassette).find((n) => /^\d+ tools_list\.json$/.test(n))!;
    const tools = JSON.parse(await readFile(join(cassette, list), 'utf8'));
    tools.tools[0].inputSchema = { type: 'string' }; // tool.input-schema: an error
    await writeFile(join(cassette, list), JSON.stringify(tools));
    for (const failOn of ['error', 'breaking', 'warning', 'note'])
      expect((await runCli(['lint', '--cache', cassette, '--fail-on', failOn])).code, failOn).toBe(1);
    expect((await runCli(['lint', '--cache', cassette, '--fail-on', 'never'])).code).toBe(0);
    const both = await runCli(['lint', '--cache', cassette, '--json', '--format', 'sarif']);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('--json and --format sarif together');
  });
});

const GITHUB_TOKEN = 'ghp_' + 'Zq7Yx1Wv3Ut5Sr8Pn0Mk2Lj4Hg6Fd9Cb1Aa3';
const JWT =
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJ1c2VyLTQyIiwiaWF0IjoxNzAwMDAwMDAwfQ.c2lnbmF0dXJlLW9mLXRoZS10b2tlbg';
const PRIVATE_KEY = [
  '-----BEGIN RSA PRIVATE KEY-----',
  'MIIEowIBAAKCAQEAs8Yd5kmJk0h3w0cJmFAkeZ1ejkTtZdTnD2QzK0m6sS4Yq3cW',
  'p9X1oV2rN8uT5yL7eQ4aB6cD0fG3hJ9kM2nP5rS8tU1vW4xY7zA0bC3dE6fG9hJ2',
  '-----END RSA PRIVATE KEY-----',
].join('\n');
const COOKIE = 'session=8f14e45fceea167a5a36dedd4bea2543';

describe('redact --scan', () => {
  it('finds the tokens, JWT and private key a real recording kept, and a cookie pasted into a debug file — file, JSON path, rule, never the whole secret', async () => {
    const server = await startSdkServer();
    const { cacheDir } = await recordThrough(server.url, async (url) => {
      // the client's own Authorization header: the proxy redacts it before it touches disk (not a finding)
      const c = await connectClient(url, { headers: { Authorization: `Bearer ${JWT}` } });
      await c.client.callTool({ name: 'echo', arguments: { text: `deploy with ${GITHUB_TOKEN}` } });
      await c.client.callTool({ name: 'echo', arguments: { text: `session ${JWT}` } });
      await c.client.callTool({ name: 'echo', arguments: { text: PRIVATE_KEY } });
      await c.close();
    });
    await server.close();
    const clean = await runCli(['redact', '--scan', cacheDir]);
    expect(clean.code).toBe(1);
    const files = (await import('node:fs')).readdirSync(cacheDir);
    const reqFile = files.find((n) => n.endsWith('.req.json') && n.includes('tools_call_echo'))!;
    expect(await readFile(join(cacheDir, reqFile), 'utf8')).toContain('[REDACTED]');
    const req = JSON.parse(await readFile(join(cacheDir, reqFile), 'utf8'));
    req.headers.cookie = COOKIE; // pasted back by hand
    await writeFile(join(cacheDir, reqFile), JSON.stringify(req));

    const json = await runCli(['redact', '--scan', cacheDir, '--format', 'json']);
    expect(json.code).toBe(1);
    const found = JSON.parse(json.stdout).findings as Array<{ rule: string; file: string; path: string }>;
    const where = (rule: string): string[] =>
      found.filter((f) => f.rule === rule).map((f) => `${f.file.split('/').pop()} ${f.path}`);
    expect(where('secret.github')).toContainEqual(
      expect.stringMatching(/^\d+ tools_call_echo_\w+\.json \$\.result\.content\[0\]\.text$/),
    );
    expect(where('secret.github')).toContainEqual(
      expect.stringMatching(/^\d+ tools_call_echo_\w+\.req\.json \$\.body\.params\.arguments\.text$/),
    );
    expect(where('secret.jwt')).toContainEqual(
      expect.stringMatching(/^\d+ tools_call_echo_\w+\.json \$\.result\.content\[0\]\.text$/),
    );
    expect(where('secret.privatekey')).toContainEqual(
      expect.stringMatching(/^\d+ tools_call_echo_\w+\.json \$\.result\.content\[0\]\.text$/),
    );
    expect(where('secret.credential-field')).toEqual([`${reqFile} $.headers.cookie`]);
    // the redacted Authorization header is no finding
    expect(found.some((f) => f.path === '$.headers.authorization')).toBe(false);

    const text = await runCli(['redact', '--scan', cacheDir]);
    expect(text.stdout).toMatch(
      /^.+\.req\.json {2}\$\.headers\.cookie {2}secret\.credential-field {2}sess… \(\d+ chars\)$/m,
    );
    expect(text.stdout.trim().split('\n').at(-1)).toMatch(/: \d+ files scanned, \d+ secrets found/);
    const sarif = await runCli(['redact', '--scan', cacheDir, '--format', 'sarif'], cacheDir);
    const results = checkSarif(sarif.stdout, secretGateRules(), cacheDir);
    expect(results.length).toBe(found.length);
    for (const out of [json, text, sarif]) {
      const printed = out.stdout + out.stderr;
      for (const secret of [GITHUB_TOKEN, JWT, COOKIE, PRIVATE_KEY.split('\n')[1]])
        expect(printed).not.toContain(secret);
    }
  });

  it('a clean recording: exit 0, says how many files it read; a path that does not exist is a usage error', async () => {
    const cassette = await recordRelease(1);
    const run = await runCli(['redact', '--scan', cassette]);
    expect(run.code, run.stdout).toBe(0);
    expect(run.stdout.trim()).toMatch(/: \d+ files scanned, no secret found$/);
    const missing = await runCli(['redact', '--scan', join(cassette, 'nope')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('does not exist');
  });
});
