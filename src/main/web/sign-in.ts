import { createHash, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { writeFileAtomic } from '../api/files/atomic-file.js';

/**
 * How a browser tab gets the UI's session token without the token ever being in a URL or in any process's argv
 * (any local user reads /proc/<pid>/cmdline; a browser keeps URLs in its history):
 *
 * - `mcp-rewind ui` writes a hand-off file, owner-only (0600), and opens *its path* in the browser (as Jupyter does).
 *   The file POSTs a one-time code to the UI, which answers a page that keeps the token in the tab's sessionStorage
 *   and replaces its location with `/`. The code is in no argv (other users cannot read the file) and is spent there.
 * - the printed link, for a human to paste, carries a one-time code too (`/?code=`): the page takes it out of the
 *   address bar and exchanges it once for the token (POST /api/session).
 *
 * A code works once and for CODE_TTL_MS; another process cannot race the owner for it, since it is never in argv.
 */
export const CODE_TTL_MS = 60_000;
/** codes not yet used: at most this many (the oldest are dropped); each sign-in needs one */
const MAX_OPEN_CODES = 100;
/** the sessionStorage key the page keeps its token under (src/renderer/src/api/client.ts reads it) */
export const TOKEN_STORAGE_KEY = 'mcp-rewind-token';
/** the hand-off file in the data folder (one at a time: a newer one replaces it; its code is spent or expired anyway) */
export const handoffFile = (dataDir: string): string => join(dataDir, 'ui-open.html');

const hash = (code: string): string => createHash('sha256').update(code).digest('hex');

/** One-time sign-in codes: `issue` one, `redeem` it once within the time to live. */
export class SignInCodes {
  private readonly open = new Map<string, number>();

  constructor(
    private readonly ttlMs = CODE_TTL_MS,
    private readonly now: () => number = Date.now,
  ) {}

  /** a new code: 256 random bits, base64url */
  issue(): string {
    this.prune();
    if (this.open.size >= MAX_OPEN_CODES) this.open.delete(this.open.keys().next().value as string);
    const code = randomBytes(32).toString('base64url');
    this.open.set(hash(code), this.now() + this.ttlMs);
    return code;
  }

  /** true the first time a code issued less than the time to live ago is given; false ever after */
  redeem(code: string | undefined | null): boolean {
    if (typeof code !== 'string' || code.length === 0 || code.length > 200) return false;
    const key = hash(code);
    const expires = this.open.get(key);
    this.open.delete(key);
    return expires !== undefined && this.now() < expires;
  }

  private prune(): void {
    const now = this.now();
    for (const [key, expires] of this.open) if (now >= expires) this.open.delete(key);
  }
}

const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The hand-off file: a form that POSTs the code to the UI at once (a button where scripts are off). */
export function handoffFileHtml(origin: string, code: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="referrer" content="no-referrer"><title>Opening mcp-rewind…</title></head>
<body>
<form id="signin" method="post" action="${escapeHtml(`${origin}/api/handoff`)}">
<input type="hidden" name="code" value="${escapeHtml(code)}">
<p>Opening mcp-rewind at ${escapeHtml(origin)}… <button type="submit">Open</button></p>
</form>
<script>document.getElementById('signin').submit();</script>
</body></html>
`;
}

/** Writes the hand-off file (0600, atomically) for one code; answers its file:// URL, which holds no secret. */
export async function writeHandoffFile(dataDir: string, origin: string, code: string): Promise<string> {
  const file = handoffFile(dataDir);
  await writeFileAtomic(file, handoffFileHtml(origin, code));
  return file;
}

/** What POST /api/handoff answers for a good code: the token into sessionStorage, then `/` in place of this page. */
export function handoffPage(token: string): { html: string; csp: string } {
  const nonce = randomBytes(16).toString('base64');
  const script = `sessionStorage.setItem(${JSON.stringify(TOKEN_STORAGE_KEY)}, ${JSON.stringify(token)}); location.replace('/');`;
  return {
    html: `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>mcp-rewind</title></head><body><script nonce="${nonce}">${script}</script></body></html>`,
    csp: `default-src 'none'; script-src 'nonce-${nonce}'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
  };
}

/** …and for a spent, expired or unknown code: what to do instead. */
export const HANDOFF_REFUSED_HTML = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>mcp-rewind: link used</title></head>
<body><p>This sign-in link of mcp-rewind was used already or has expired (a link works once, within a minute).
Run <code>mcp-rewind ui</code> again: it prints and opens a new one.</p></body></html>`;
