import { randomBytes } from 'node:crypto';
import { auth } from '@modelcontextprotocol/sdk/client/auth.js';
import type { SignInStep } from '../../../../shared/sign-in.js';
import { listenForCallback, type Callback, CallbackError } from './callback.js';
import { RewindOAuthProvider, StepError, type AuthRun, type GivenClient, type SignInRecord } from './provider.js';
import { StepTracker } from './steps.js';

/** What a sign-in flow needs to know of its upstream. */
export interface FlowContext {
  upstream: string;
  label: string;
  record: SignInRecord;
  given?: GivenClient;
  /** the port to try for the redirect (the registered client's, or the user's), else any free one */
  port?: number;
  timeoutMs: number;
  /** each request to the authorization server (default 15 s) */
  requestTimeoutMs?: number;
  /** from the upstream's challenge */
  resourceMetadataUrl?: URL;
}

/** How a flow ended badly: the step and the reason. */
export class FlowFailure extends Error {
  constructor(
    readonly step: SignInStep,
    readonly reason: string,
    options?: ErrorOptions,
  ) {
    super(reason, options);
    this.name = 'FlowFailure';
  }
}

/**
 * One interactive sign-in, all through the SDK's `auth()`: discovery, registration (or the given client), PKCE and
 * the authorization URL with the upstream as resource; then, once the browser came back to the loopback redirect with
 * the right state, the token exchange. `onUrl` gets the page to open. Throws a FlowFailure naming the step.
 */
export async function runSignIn(
  context: FlowContext,
  scope: string | undefined,
  onUrl: (url: string) => void,
): Promise<void> {
  const state = randomBytes(32).toString('base64url');
  const callback = await listen(context, state);
  const run: AuthRun = { redirectUrl: callback.url, state, fresh: true };
  const provider = new RewindOAuthProvider(context.upstream, context.record, run, context.given);
  const tracker = new StepTracker(context.requestTimeoutMs);
  const options = {
    serverUrl: context.upstream,
    scope,
    resourceMetadataUrl: context.resourceMetadataUrl,
    fetchFn: tracker.fetch,
  };
  let step: SignInStep = 'discovery';
  try {
    if ((await auth(provider, options)) === 'AUTHORIZED') return;
    if (!run.authorizationUrl) throw new FlowFailure('authorization', 'no authorization URL was made');
    // a browser (or xdg-open, or the desktop's opener) is handed this URL: a web page, never another scheme
    if (!/^https?:$/.test(run.authorizationUrl.protocol))
      throw new FlowFailure(
        'discovery',
        `the authorization endpoint is not an http(s) URL (${run.authorizationUrl.protocol})`,
      );
    onUrl(run.authorizationUrl.href);
    step = 'authorization';
    const code = await callback.code;
    step = 'token';
    await auth(provider, { ...options, authorizationCode: code });
  } catch (error) {
    throw failure(error, step, tracker);
  } finally {
    callback.close();
    run.verifier = undefined;
  }
}

/**
 * A refresh through `auth()` (it refreshes whenever the record holds a refresh token). Answers true once new tokens
 * are saved; false with the reason when the authorization server refused, or `auth()` would need a browser.
 */
export async function runRefresh(context: FlowContext): Promise<{ ok: true } | { ok: false; reason: string }> {
  const redirectUrl = context.record.get().redirectUri ?? 'http://127.0.0.1/callback';
  const provider = new RewindOAuthProvider(
    context.upstream,
    context.record,
    { redirectUrl, state: '', fresh: false, refreshOnly: true },
    context.given,
  );
  const tracker = new StepTracker(context.requestTimeoutMs);
  try {
    const result = await auth(provider, {
      serverUrl: context.upstream,
      resourceMetadataUrl: context.resourceMetadataUrl,
      fetchFn: tracker.fetch,
    });
    if (result === 'AUTHORIZED') return { ok: true };
    return { ok: false, reason: tracker.reported('refresh')?.reason ?? 'the authorization server gave no new token' };
  } catch (error) {
    return { ok: false, reason: failure(error, 'refresh', tracker).reason };
  }
}

/** The loopback listener: on the preferred port, else (taken) on any free one. */
async function listen(context: FlowContext, state: string): Promise<Callback> {
  const open = (port: number): Promise<Callback> =>
    listenForCallback({ port, state, timeoutMs: context.timeoutMs, label: context.label });
  try {
    return await open(context.port ?? 0).catch((error: NodeJS.ErrnoException) => {
      if (context.port && error.code === 'EADDRINUSE') return open(0);
      throw error;
    });
  } catch (error) {
    throw new FlowFailure(
      'authorization',
      `cannot listen on 127.0.0.1 for the browser's redirect (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
    );
  }
}

/** The step and reason of an error: the proxy's own refusals say theirs; else what the tracker saw; else the SDK's words. */
function failure(error: unknown, step: SignInStep, tracker: StepTracker): FlowFailure {
  if (error instanceof FlowFailure) return error;
  if (error instanceof CallbackError) return new FlowFailure('authorization', error.message, { cause: error });
  const seen = step === 'authorization' ? undefined : tracker.reported(step === 'discovery' ? undefined : step);
  if (error instanceof StepError)
    return new FlowFailure(error.step, seen?.network ? `${error.message}: ${seen.reason}` : error.message, {
      cause: error,
    });
  if (seen) return new FlowFailure(seen.step, seen.reason, { cause: error });
  const message = (error as Error).message ?? String(error);
  return new FlowFailure(/dynamic client registration/i.test(message) ? 'registration' : step, message, {
    cause: error,
  });
}
