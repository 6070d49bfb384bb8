import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { timingSafeEqual } from 'node:crypto';
import type { AddressInfo } from 'node:net';

/** The loopback redirect of one sign-in: where the browser comes back with the code. */
export interface Callback {
  /** http://127.0.0.1:<port>/callback */
  readonly url: string;
  /** the code, once the browser came back with the right state; rejects with the reason otherwise */
  readonly code: Promise<string>;
  close(): void;
}

/** The browser came back without a usable code (an error answer, a wrong state), or did not come back in time. */
export class CallbackError extends Error {
  override name = 'CallbackError';
}

export interface CallbackOptions {
  /** the port to listen on (0: any free one) */
  port: number;
  /** the state sent in the authorization request: the redirect must carry it back */
  state: string;
  /** how long the browser has to come back */
  timeoutMs: number;
  /** what the page says the user signed in to */
  label: string;
}

const PATH = '/callback';

/**
 * Listens on 127.0.0.1 for the one redirect of a sign-in (RFC 8252 loopback redirect). The first request to
 * /callback settles it — with the code when its `state` matches, with the authorization server's error or a refusal
 * otherwise — and the listener closes; so does a timeout. Requests naming another Host are refused (DNS rebinding);
 * other paths (a favicon) get 404 and change nothing. The code never appears in a log or in the page.
 */
export async function listenForCallback(options: CallbackOptions): Promise<Callback> {
  let settle!: { resolve: (code: string) => void; reject: (error: Error) => void };
  const code = new Promise<string>((resolve, reject) => (settle = { resolve, reject }));
  code.catch(() => {}); // the caller may stop waiting (the flow failed before the browser step): never unhandled
  const server = createServer((req, res) => {
    if (!hostIsOurs(req, port())) return page(res, 403, 'This address does not belong to this sign-in.');
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== PATH || req.method !== 'GET') return page(res, 404, 'Not found.');
    const outcome = judge(url.searchParams, options.state);
    done();
    if (typeof outcome === 'string') {
      page(res, 200, `Signed in to ${options.label}. You can close this tab.`);
      settle.resolve(outcome);
    } else {
      page(res, 400, `Sign-in refused: ${outcome.message}`);
      settle.reject(outcome);
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, '127.0.0.1', () => resolve());
  });
  const port = (): number => (server.address() as AddressInfo).port;
  const timer = setTimeout(() => {
    done();
    const seconds = options.timeoutMs >= 1000 ? Math.round(options.timeoutMs / 1000) : options.timeoutMs / 1000;
    settle.reject(new CallbackError(`the browser did not come back within ${seconds} s`));
  }, options.timeoutMs).unref();
  const done = (): void => {
    clearTimeout(timer);
    server.close();
    server.closeIdleConnections();
  };
  return {
    url: `http://127.0.0.1:${port()}${PATH}`,
    code,
    close: () => {
      done();
      settle.reject(new CallbackError('the sign-in was given up'));
    },
  };
}

/** The code, or why the redirect cannot be used. The state is compared first: nothing else of a forged redirect counts. */
function judge(params: URLSearchParams, expected: string): string | CallbackError {
  const state = params.get('state') ?? '';
  const a = Buffer.from(state);
  const b = Buffer.from(expected);
  if (a.length !== b.length || !timingSafeEqual(a, b))
    return new CallbackError('the redirect carried a wrong state (not the sign-in this proxy started)');
  const error = params.get('error');
  if (error) {
    const description = params.get('error_description');
    return new CallbackError(
      `the authorization server answered ${error.slice(0, 100)}${description ? ` (${description.slice(0, 300)})` : ''}`,
    );
  }
  const code = params.get('code');
  return code ? code : new CallbackError('the redirect carried no code');
}

function hostIsOurs(req: IncomingMessage, port: number): boolean {
  const host = req.headers.host ?? '';
  return host === `127.0.0.1:${port}` || host === `localhost:${port}`;
}

function page(res: ServerResponse, status: number, text: string): void {
  const escaped = text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  res.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'content-security-policy': "default-src 'none'",
    'referrer-policy': 'no-referrer',
    'cache-control': 'no-store',
    connection: 'close',
  });
  res.end(`<!doctype html><meta charset="utf-8"><title>mcp-rewind sign-in</title><p>${escaped}</p>\n`);
}
