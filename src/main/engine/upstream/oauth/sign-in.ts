import type { SignInInfo, SignInStep } from '../../../../shared/sign-in.js';
import { redactUrl } from '../../redact.js';
import { silent, type Log } from '../../log.js';
import { challengeOf, type Challenge, type UpstreamAuth } from './challenge.js';
import { canonicalUpstream, type CredentialStore, type StoredSignIn } from './credentials.js';
import { FlowFailure, runRefresh, runSignIn, type FlowContext } from './flow.js';
import type { GivenClient, SignInRecord } from './provider.js';
import { SignInError, SignInRequiredError } from './steps.js';

export interface SignInOptions {
  /** where the tokens are kept (the data folder's oauth/) */
  store: CredentialStore;
  /** a client registered by the user (else: dynamic registration) */
  client?: GivenClient;
  /** the loopback port for the redirect (default: the registered client's, else any free one) */
  callbackPort?: number;
  /** how long a sign-in waits for the browser (default 5 min); requests wait as long */
  timeoutMs?: number;
  /** each request to the authorization server (default 15 s) */
  requestTimeoutMs?: number;
  log?: Log;
}

const DEFAULT_TIMEOUT_MS = 5 * 60_000;

/**
 * One upstream's OAuth sign-in, shared by everything in the process that talks to it (the relay, the proxy's own
 * clients, `serve` sessions, the app): its tokens (kept owner-only in the data folder), at most one sign-in or refresh
 * at a time (everyone who needs it waits for the same one), and its state for the shells to show.
 */
export class UpstreamSignIn implements UpstreamAuth {
  readonly upstream: string;
  /** the upstream without credentials, for messages */
  readonly label: string;
  private stored: StoredSignIn;
  private state: SignInInfo;
  private flow?: Promise<void>;
  private refreshing?: Promise<boolean>;
  /** why the last refresh failed, until a sign-in succeeds (named in the error of a sign-in that follows it) */
  private refreshFailure?: string;
  private challenge?: Challenge;
  private readonly listeners = new Set<(info: SignInInfo) => void>();
  private readonly record: SignInRecord;

  constructor(
    upstream: string | URL,
    private readonly options: SignInOptions,
  ) {
    this.upstream = canonicalUpstream(upstream);
    this.label = redactUrl(this.upstream);
    this.stored = options.store.read(this.upstream) ?? { upstream: this.upstream };
    this.state = this.stored.tokens ? this.signedInInfo() : { state: 'none' };
    this.record = {
      get: () => this.stored,
      update: async (patch) => {
        this.stored = { ...this.stored, ...patch };
        await options.store.write(this.stored);
      },
    };
  }

  info(): SignInInfo {
    return { ...this.state };
  }

  /** Calls `listener` with every new state; answers how to stop. */
  onChange(listener: (info: SignInInfo) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  owns(): boolean {
    return this.stored.tokens !== undefined || this.flow !== undefined;
  }

  /** whatever the state was (a start probe's 401 said "required", a sign-in failed): the client's own token works */
  passedThrough(): void {
    if (!this.owns() && this.state.state !== 'client') this.setState({ state: 'client' });
  }

  async header(): Promise<string | undefined> {
    if (this.expiring()) await this.refresh(); // a refused refresh leaves the old token: the server judges it
    const token = this.stored.tokens?.access_token;
    return token ? `Bearer ${token}` : undefined;
  }

  async challenged(challenge: Challenge, options: { interactive: boolean; sent?: string }): Promise<void> {
    this.reload();
    this.challenge = { ...this.challenge, ...challenge };
    if (this.flow) {
      if (!options.interactive) throw new SignInRequiredError(this.label, 'a sign-in is waiting for the browser');
      return this.flow;
    }
    const current = this.stored.tokens ? `Bearer ${this.stored.tokens.access_token}` : undefined;
    if (current !== undefined && current !== options.sent) return; // a newer token arrived meanwhile: try that one
    const stepUp = challenge.status === 403;
    if (!stepUp && this.stored.tokens?.refresh_token && (await this.refresh())) return;
    if (!options.interactive) throw new SignInRequiredError(this.label);
    return this.authorize(stepUp ? this.widened(challenge.scope) : challenge.scope);
  }

  /** `auth login`, the app's Sign in: asks the upstream for its challenge, then signs in; resolves once signed in. */
  async signIn(): Promise<void> {
    if (this.flow) return this.flow;
    const challenge = await this.probe();
    if (challenge) this.challenge = challenge;
    return this.authorize(challenge?.scope);
  }

  /** Starts a sign-in (or joins the one running) and answers the page to open as soon as it is known. */
  async begin(): Promise<string> {
    const done = this.signIn();
    done.catch(() => {}); // reported through the state
    if (this.state.url) return this.state.url;
    return new Promise((resolve, reject) => {
      const off = this.onChange((info) => {
        if (info.url) resolve(info.url);
        else if (info.state === 'signed-in') resolve('');
        else return;
        off();
      });
      done.then(
        () => (off(), resolve(this.state.url ?? '')),
        (error: Error) => (off(), reject(error)),
      );
    });
  }

  /** Forgets the tokens and the registered client (the data folder's file is removed). */
  async signOut(): Promise<void> {
    this.stored = { upstream: this.upstream };
    await this.options.store.remove(this.upstream);
    this.setState({ state: 'none' });
  }

  private authorize(scope: string | undefined): Promise<void> {
    this.flow ??= this.runFlow(scope).finally(() => (this.flow = undefined));
    return this.flow;
  }

  private async runFlow(scope: string | undefined): Promise<void> {
    this.setState({
      state: 'required',
      ...(this.refreshFailure ? { error: `the refresh failed: ${this.refreshFailure}` } : {}),
    });
    try {
      await runSignIn(this.context(), scope, (url) => this.setState({ ...this.state, url }));
    } catch (error) {
      const f = error instanceof FlowFailure ? error : new FlowFailure('authorization', (error as Error).message);
      throw this.failed(f.step, f.reason, error);
    }
    this.refreshFailure = undefined;
    this.setState(this.signedInInfo());
    this.log(`signed in to ${this.label}${this.stored.user ? ` as ${this.stored.user}` : ''}`, 'info');
  }

  private refresh(): Promise<boolean> {
    this.refreshing ??= runRefresh(this.context())
      .then((outcome) => {
        if (outcome.ok) {
          this.refreshFailure = undefined;
          this.setState(this.signedInInfo());
          return true;
        }
        this.refreshFailure = outcome.reason;
        this.log(`the token refresh for ${this.label} failed: ${outcome.reason}`, 'warn');
        return false;
      })
      .finally(() => (this.refreshing = undefined));
    return this.refreshing;
  }

  /** The error waiting requests get; after a failed refresh, the refresh is the step named. */
  private failed(step: SignInStep, reason: string, cause: unknown): SignInError {
    const refresh = this.refreshFailure;
    this.refreshFailure = undefined; // named once: a later attempt fails on its own account
    const error = refresh
      ? new SignInError(
          'refresh',
          `${refresh}; a new sign-in was started and did not complete: ${reason}`,
          this.label,
          { cause },
        )
      : new SignInError(step, reason, this.label, { cause });
    this.setState({ state: 'failed', step: error.step, error: error.reason });
    this.log(error.message.replace(/^mcp-rewind: /, ''), 'warn');
    return error;
  }

  /** Refresh when less than a quarter of the token's life (at most a minute) is left. */
  private expiring(): boolean {
    const { tokens, obtainedAt } = this.stored;
    if (!tokens?.refresh_token || !tokens.expires_in || !obtainedAt) return false;
    const lifetime = tokens.expires_in * 1000;
    return obtainedAt + lifetime - Date.now() < Math.min(60_000, lifetime / 4);
  }

  /** A step-up asks for what was granted and what the challenge names (the spec's "recommended approach" on the client side). */
  private widened(scope: string | undefined): string | undefined {
    const all = new Set([...(this.stored.tokens?.scope ?? '').split(' '), ...(scope ?? '').split(' ')].filter(Boolean));
    return all.size ? [...all].join(' ') : undefined;
  }

  /** Another process (`auth login`, the app) may have signed in meanwhile: the file is read again. */
  private reload(): void {
    const onDisk = this.options.store.read(this.upstream);
    if (onDisk?.tokens && onDisk.tokens.access_token !== this.stored.tokens?.access_token) this.stored = onDisk;
  }

  /** A POST initialize without a token: the upstream's challenge (undefined: it asked for none). */
  private async probe(): Promise<Challenge | undefined> {
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'mcp-rewind-sign-in', version: '1' },
      },
    });
    let res: Response;
    try {
      res = await fetch(this.upstream, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body,
        signal: AbortSignal.timeout(15_000),
      });
    } catch (error) {
      const e = error as Error & { cause?: { code?: string } };
      throw this.failed('discovery', `the upstream is unreachable (${e.cause?.code ?? e.message})`, error);
    }
    await res.body?.cancel().catch(() => {});
    return challengeOf(res.status, res.headers.get('www-authenticate'));
  }

  private context(): FlowContext {
    const registered = this.stored.redirectUri ? Number(new URL(this.stored.redirectUri).port) : undefined;
    return {
      upstream: this.upstream,
      label: this.label,
      record: this.record,
      given: this.options.client,
      port: this.options.callbackPort ?? registered,
      timeoutMs: this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      requestTimeoutMs: this.options.requestTimeoutMs,
      resourceMetadataUrl: this.challenge?.resourceMetadataUrl,
    };
  }

  private signedInInfo(): SignInInfo {
    const { tokens, obtainedAt, user } = this.stored;
    const expiresAt = tokens?.expires_in && obtainedAt ? obtainedAt + tokens.expires_in * 1000 : undefined;
    return {
      state: 'signed-in',
      ...(user ? { user } : {}),
      ...(expiresAt ? { expiresAt } : {}),
      ...(tokens?.scope ? { scope: tokens.scope } : {}),
    };
  }

  private setState(info: SignInInfo): void {
    this.state = info;
    for (const listener of this.listeners) {
      try {
        listener(this.info());
      } catch {
        // a listener's failure never breaks the sign-in
      }
    }
  }

  private log(line: string, level: 'info' | 'warn'): void {
    (this.options.log ?? silent)(line, level);
  }
}

const registry = new Map<string, UpstreamSignIn>();

/** The one sign-in of an upstream in this process, per data folder and client id. */
export function signInFor(upstream: string | URL, options: SignInOptions): UpstreamSignIn {
  const key = `${options.store.dir}\n${canonicalUpstream(upstream)}\n${options.client?.clientId ?? ''}`;
  let signIn = registry.get(key);
  if (!signIn) registry.set(key, (signIn = new UpstreamSignIn(upstream, options)));
  return signIn;
}
