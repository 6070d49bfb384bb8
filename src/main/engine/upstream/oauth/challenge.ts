import { extractWWWAuthenticateParams } from '@modelcontextprotocol/sdk/client/auth.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { SignInError } from './steps.js';

/** An upstream's refusal that a sign-in can cure: 401 with a Bearer challenge, or 403 `insufficient_scope` (step-up). */
export interface Challenge {
  status: 401 | 403;
  resourceMetadataUrl?: URL;
  scope?: string;
  error?: string;
}

/** The upstream's sign-in, as the connectors use it (oauth/sign-in.ts UpstreamSignIn). */
export interface UpstreamAuth {
  /** `Bearer <token>` to send, refreshed first when it is about to expire; undefined while there is none */
  header(): Promise<string | undefined>;
  /**
   * does the proxy hold (or run) this upstream's sign-in? Then its token replaces a client's own Authorization;
   * while it does not, header() has no token to give (requests go without awaiting it)
   */
  owns(): boolean;
  /** a client's own Authorization went upstream as it is and was not refused (the proxy holds no sign-in) */
  passedThrough(): void;
  /**
   * The upstream refused `sent`: resolves once a retry makes sense (a newer token, a refresh, a completed sign-in),
   * rejects with the step that failed. `interactive: false` never waits for a browser (SignInRequiredError instead).
   */
  challenged(challenge: Challenge, options: { interactive: boolean; sent?: string }): Promise<void>;
}

/** The challenge in a response, if it is one a sign-in can answer (a 401 without a Bearer challenge is not). */
export function challengeOf(status: number, wwwAuthenticate: string | null | undefined): Challenge | undefined {
  if ((status !== 401 && status !== 403) || !wwwAuthenticate || !/^\s*bearer\b/i.test(wwwAuthenticate))
    return undefined;
  const params = extractWWWAuthenticateParams(new Response(null, { headers: { 'www-authenticate': wwwAuthenticate } }));
  if (status === 403 && params.error !== 'insufficient_scope') return undefined;
  return { status, ...params };
}

/** One request under the upstream's sign-in: how to send it with an Authorization (or none), and read its answer. */
export interface SignedRequest<R> {
  /** the client's own Authorization, if it sent one */
  clientAuthorization?: string;
  send(authorization: string | undefined): Promise<R>;
  challenge(response: R): Challenge | undefined;
  /** drops an answer that is not passed on (its body is not read) */
  discard(response: R): void;
}

/**
 * The one policy of both connectors (the relay's HttpUpstream, the proxy's own SDK clients): send with the proxy's
 * token; on a challenge, let the sign-in cure it (refresh, re-authorise, step up) and send once more; a second
 * challenge is a failure, not a loop. A client's own Authorization passes through while the proxy holds no sign-in.
 */
export function withSignIn<R>(
  auth: UpstreamAuth,
  request: SignedRequest<R>,
  interactive: boolean,
  upstream: string,
): Promise<R> {
  if (auth.owns()) return signed(auth, request, interactive, upstream);
  if (request.clientAuthorization !== undefined)
    return request.send(request.clientAuthorization).then((answer) => {
      if (!request.challenge(answer)) auth.passedThrough(); // a refused token is the client's business
      return answer;
    });
  // no sign-in held, so no token to add or refresh: sent at once, no awaits (every request of a proxy in front of a
  // server that wants none takes this path); a challenge in the answer starts the sign-in
  return request.send(undefined).then((first) => {
    const challenge = request.challenge(first);
    return challenge ? cured(auth, request, interactive, upstream, first, challenge, undefined) : first;
  });
}

async function signed<R>(
  auth: UpstreamAuth,
  request: SignedRequest<R>,
  interactive: boolean,
  upstream: string,
): Promise<R> {
  const sent = await auth.header();
  const first = await request.send(sent);
  const challenge = request.challenge(first);
  return challenge ? cured(auth, request, interactive, upstream, first, challenge, sent) : first;
}

/** The upstream challenged the first send: the sign-in cures it, and the request goes once more. */
async function cured<R>(
  auth: UpstreamAuth,
  request: SignedRequest<R>,
  interactive: boolean,
  upstream: string,
  first: R,
  challenge: Challenge,
  sent: string | undefined,
): Promise<R> {
  request.discard(first);
  await auth.challenged(challenge, { interactive, sent });
  const second = await request.send(await auth.header());
  const again = request.challenge(second);
  if (!again) return second;
  request.discard(second);
  throw new SignInError(
    'token',
    `the upstream refused the new token too (HTTP ${again.status}${again.error ? ` ${again.error}` : ''})`,
    upstream,
  );
}

/** A fetch for the proxy's own SDK clients of `endpoint`: its requests go under the sign-in; any other URL is fetched as it is. */
export function signedFetch(auth: UpstreamAuth, endpoint: URL, interactive: boolean, upstream: string): FetchLike {
  return (url, init) => {
    const target = new URL(url);
    if (target.origin !== endpoint.origin || target.pathname !== endpoint.pathname) return fetch(url, init);
    return withSignIn(
      auth,
      {
        send: (authorization) => {
          const headers = new Headers(init?.headers);
          if (authorization) headers.set('authorization', authorization);
          else headers.delete('authorization');
          return fetch(url, { ...init, headers });
        },
        challenge: (response) => challengeOf(response.status, response.headers.get('www-authenticate')),
        discard: (response) => void response.body?.cancel().catch(() => {}),
      },
      interactive,
      upstream,
    );
  };
}
