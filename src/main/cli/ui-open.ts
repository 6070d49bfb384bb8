import { spawn } from 'node:child_process';
import { request } from 'node:http';
import { pathToFileURL } from 'node:url';
import { writeHandoffFile } from '../web/sign-in.js';

/**
 * How `mcp-rewind ui` lets its user in (src/main/web/sign-in.ts): a one-time link printed for a human to paste, and
 * the hand-off file (0600, a one-time code inside) whose *path* the browser is given. No argv of ours, nor of the
 * opener or the browser it starts, holds the token or a code.
 */

/** Opens a URL in the default browser; failures (no desktop, no opener) are ignored: the link is printed anyway. */
export function openBrowser(url: string): void {
  const [command, args] =
    process.platform === 'darwin'
      ? ['open', [url]]
      : process.platform === 'win32'
        ? ['cmd', ['/c', 'start', '""', url.replace(/&/g, '^&')]]
        : ['xdg-open', [url]];
  try {
    const child = spawn(command, args, {
      stdio: 'ignore',
      detached: true,
      windowsHide: true,
      windowsVerbatimArguments: process.platform === 'win32',
    });
    child.on('error', () => {});
    child.unref();
  } catch {
    // no opener: the printed link is enough
  }
}

/** Writes the hand-off file for `code` and opens it; answers its file:// URL (what the browser is given). */
export async function openHandoff(dataDir: string, origin: string, code: string): Promise<string> {
  const url = pathToFileURL(await writeHandoffFile(dataDir, origin, code)).href;
  openBrowser(url);
  return url;
}

/** A new one-time code from the UI running at `origin` (POST /api/code with its token, over loopback: never in argv). */
export function codeFromRunningUi(origin: string, token: string, timeoutMs = 5_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${origin}/api/code`,
      { method: 'POST', headers: { authorization: `Bearer ${token}` }, timeout: timeoutMs },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => {
          const code = res.statusCode === 201 ? (JSON.parse(body) as { code?: unknown }).code : undefined;
          if (typeof code === 'string') resolve(code);
          else reject(new Error(`the running UI at ${origin} gave no sign-in link (HTTP ${res.statusCode})`));
        });
      },
    );
    req.on('timeout', () =>
      req.destroy(new Error(`the running UI at ${origin} did not answer within ${timeoutMs} ms`)),
    );
    req.on('error', reject);
    req.end();
  });
}
