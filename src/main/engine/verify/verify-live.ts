import { describeError, UnreachableError } from '../errors.js';
import { sendModern, type ModernEnvelope } from './verify-modern.js';
import { signedFetch, type UpstreamAuth } from '../upstream/oauth/challenge.js';
import { hasAuthorization } from '../http/headers.js';
import { causeOf, openHttpSession, type LiveAnswer, type LiveSession, type VerifyRequest } from './verify-session.js';

/**
 * The live server as verify speaks to it: in the revision each entry was recorded in. 2025-era entries go through one
 * session of verify's own (opened on first use, with the recorded client's initialize params); 2026-07-28 entries
 * are stateless requests, each with its `_meta`. A server that cannot be reached before it answered anything stops
 * the run (UnreachableError, one line); later failures are the request's ("no answer": drift).
 */
export interface LiveServerOptions {
  upstreamUrl?: string;
  upstreamHeaders?: Record<string, string>;
  /** the server's OAuth sign-in (the stored one: its token, refreshed when it must be; never a browser) */
  upstreamAuth?: UpstreamAuth;
  timeoutMs?: number;
  /** how errors name the server */
  display: string;
  /** the recorded client's initialize params (the cassette's initialize.req.json) */
  initializeParams?: Record<string, unknown>;
  /** what followed the recorded exchanges on the GET stream (their client replies answer the same requests live) */
  followUps?: ReadonlyArray<Record<string, unknown>>;
  /** a live session of another kind (e.g. stdio) for the 2025 revisions */
  openSession?: (
    initializeParams: Record<string, unknown> | undefined,
    followUps?: ReadonlyArray<Record<string, unknown>>,
  ) => Promise<LiveSession>;
  /** the server is a command behind the stdio bridge, which speaks the 2025 revisions only */
  command?: boolean;
}

export class LiveServer {
  private session?: Promise<LiveSession>;
  private answeredModern = false;

  constructor(private readonly options: LiveServerOptions) {}

  /** verify's 2025-era session (opened once; a server that does not answer initialize stops the run). */
  legacy(): Promise<LiveSession> {
    this.session ??= this.openLegacy();
    return this.session;
  }

  private async openLegacy(): Promise<LiveSession> {
    const { options } = this;
    try {
      return options.openSession
        ? await options.openSession(options.initializeParams, options.followUps)
        : await openHttpSession(options.upstreamUrl ?? '', {
            initializeParams: options.initializeParams,
            followUps: options.followUps,
            headers: options.upstreamHeaders,
            timeoutMs: options.timeoutMs,
            auth: options.upstreamAuth,
          });
    } catch (error) {
      throw new UnreachableError(`${options.display} did not answer an MCP initialize: ${(error as Error).message}`);
    }
  }

  /** Can this server be spoken to in a 2026-07-28 revision (it has a URL)? */
  get speaksModern(): boolean {
    return this.options.upstreamUrl !== undefined && !this.options.command;
  }

  /** Sends a request in the revision given (undefined: the 2025 session). */
  async send(
    revision: string | undefined,
    envelope: ModernEnvelope | undefined,
    request: VerifyRequest,
  ): Promise<LiveAnswer> {
    if (revision === undefined) return (await this.legacy()).send(request);
    const url = this.options.upstreamUrl ?? '';
    const auth = this.options.upstreamAuth;
    const signed =
      auth && !hasAuthorization(this.options.upstreamHeaders) ? signedFetch(auth, new URL(url), false, url) : undefined;
    const target = {
      url,
      headers: this.options.upstreamHeaders,
      timeoutMs: this.options.timeoutMs ?? 30_000,
      fetch: signed,
    };
    try {
      const answer = await sendModern(target, revision, envelope, request);
      this.answeredModern = true;
      return answer;
    } catch (error) {
      const cause = causeOf(error);
      if (!this.answeredModern && (cause as NodeJS.ErrnoException).code !== undefined)
        throw new UnreachableError(
          `${this.options.display} did not answer a ${revision} request: ${describeError(cause)}`,
        );
      throw error;
    }
  }

  async close(): Promise<void> {
    const session = await this.session?.catch(() => undefined);
    await session?.close().catch(() => {});
  }
}
