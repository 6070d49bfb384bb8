import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startWebShell, type WebShell } from '../../src/main/web/web-shell.js';
import { CODE_TTL_MS } from '../../src/main/web/sign-in.js';
import { removeTempDirs, tempDir } from '../helpers/temp.js';

/**
 * The browser shell's one-time sign-in codes over real HTTP (the routes of src/main/web/sign-in-routes.ts): once each,
 * for 60 s by default — measured on a clock the test moves, instead of waiting a minute.
 */
const shells: WebShell[] = [];
afterEach(async () => {
  for (const s of shells.splice(0)) await s.close();
  await removeTempDirs();
});

async function shell(options: { codeTtlMs?: number; now?: () => number } = {}): Promise<WebShell> {
  const rendererDir = await tempDir('rewind-renderer-');
  writeFileSync(join(rendererDir, 'index.html'), '<!doctype html><title>ui</title>');
  const s = await startWebShell({ rendererDir, handlers: { call: async () => ({}), on: () => () => {} }, ...options });
  shells.push(s);
  return s;
}

const session = (s: WebShell, code: unknown, headers: Record<string, string> = {}): Promise<Response> =>
  fetch(`${s.origin}/api/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ code }),
  });
const handoff = (s: WebShell, code: string, origin = 'null'): Promise<Response> =>
  fetch(`${s.origin}/api/handoff`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin },
    body: `code=${code}`,
  });

describe('one-time sign-in codes', () => {
  it('a code works once: the token the first time, 401 the second; codes are distinct, and never the token', async () => {
    const s = await shell();
    const code = new URL(s.signInUrl()).searchParams.get('code')!;
    expect(code).not.toContain(s.token);
    const first = await session(s, code, { origin: s.origin });
    expect(first.status).toBe(200);
    expect(first.headers.get('cache-control')).toBe('no-store');
    expect(await first.json()).toEqual({ token: s.token });
    const again = await session(s, code, { origin: s.origin });
    expect(again.status).toBe(401);
    expect((await again.json()).error).toMatch(/used already or has expired.*run mcp-rewind ui again/);
    const many = new Set(Array.from({ length: 50 }, () => s.issueCode()));
    expect(many.size).toBe(50);
    for (const bad of ['', 'nope', s.token, 42, null]) expect((await session(s, bad)).status, String(bad)).toBe(401);
  });

  it('expires after 60 s by default (the clock is the test’s): works at 59.999 s, refused at 60 s', async () => {
    expect(CODE_TTL_MS).toBe(60_000);
    let now = 1_000_000;
    const s = await shell({ now: () => now });
    const early = s.issueCode();
    const late = s.issueCode();
    now += 59_999;
    expect((await session(s, early)).status).toBe(200);
    now += 1;
    expect((await session(s, late)).status).toBe(401);
    const file = s.issueCode();
    now += 60_000;
    expect((await handoff(s, file)).status).toBe(401); // the hand-off file's code too
  });

  it('the time to live can be set (codeTtlMs)', async () => {
    let now = 0;
    const s = await shell({ codeTtlMs: 5_000, now: () => now });
    const code = s.issueCode();
    now = 5_000;
    expect((await session(s, code)).status).toBe(401);
  });

  it('the hand-off form (from a file:// page: Origin null) answers a page that keeps the token and leaves for /, once', async () => {
    const s = await shell();
    const code = s.issueCode();
    const res = await handoff(s, code);
    expect(res.status).toBe(200);
    const csp = res.headers.get('content-security-policy')!;
    const nonce = /'nonce-([^']+)'/.exec(csp)![1];
    expect(csp).toMatch(/default-src 'none'/);
    const page = await res.text();
    expect(page).toContain(
      `<script nonce="${nonce}">sessionStorage.setItem("mcp-rewind-token", "${s.token}"); location.replace('/');</script>`,
    );
    expect((await handoff(s, code)).status).toBe(401);
    expect(await (await handoff(s, code)).text()).toContain('Run <code>mcp-rewind ui</code> again');
  });

  it('other origins are refused (403): the null origin only on the hand-off form; wrong methods and types get 405 / 415', async () => {
    const s = await shell();
    expect((await handoff(s, s.issueCode(), 'http://127.0.0.1:4598')).status).toBe(403);
    expect((await session(s, s.issueCode(), { origin: 'null' })).status).toBe(403);
    expect((await session(s, s.issueCode(), { origin: 'http://localhost:4598' })).status).toBe(403);
    expect((await fetch(`${s.origin}/api/session`)).status).toBe(405);
    expect(
      (
        await fetch(`${s.origin}/api/session`, {
          method: 'POST',
          headers: { 'content-type': 'text/plain' },
          body: '{}',
        })
      ).status,
    ).toBe(415);
    expect(
      (
        await fetch(`${s.origin}/api/session`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: 'x'.repeat(10_000),
        })
      ).status,
    ).toBe(413);
  });

  it('a new link for the holder of the token only (POST /api/code, as a second mcp-rewind ui asks)', async () => {
    const s = await shell();
    expect((await fetch(`${s.origin}/api/code`, { method: 'POST' })).status).toBe(401);
    expect(
      (await fetch(`${s.origin}/api/code`, { method: 'POST', headers: { authorization: 'Bearer wrong' } })).status,
    ).toBe(401);
    const res = await fetch(`${s.origin}/api/code`, {
      method: 'POST',
      headers: { authorization: `Bearer ${s.token}` },
    });
    expect(res.status).toBe(201);
    const { code, url } = (await res.json()) as { code: string; url: string };
    expect(url).toBe(`${s.origin}/?code=${code}`);
    expect((await session(s, code)).status).toBe(200);
  });
});
