import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode } from '../../../../shared/jsonrpc.js';
import { SIGN_IN_STEP_WORDS, type SignInStep } from '../../../../shared/sign-in.js';
import { RewindError } from '../../errors.js';

/** A sign-in that did not complete: the step that failed and why, in the words the client and the proxy's state show. */
export class SignInError extends RewindError {
  constructor(
    readonly step: SignInStep,
    readonly reason: string,
    upstream: string,
    options?: ErrorOptions,
  ) {
    super(
      `mcp-rewind: sign-in to ${upstream} failed at ${SIGN_IN_STEP_WORDS[step]}: ${reason}`,
      ErrorCode.SignInFailed,
      { step },
      options,
    );
  }
}

/** The upstream needs a sign-in and this caller cannot wait for a browser (detection, verify, serve's supervisor). */
export class SignInRequiredError extends RewindError {
  constructor(
    upstream: string,
    readonly hint = `sign in first (mcp-rewind auth login ${upstream}, or the sign-in URL the proxy shows)`,
  ) {
    super(`mcp-rewind: ${upstream} needs a sign-in: ${hint}`, ErrorCode.SignInFailed, { step: 'authorization' });
  }
}

/** What went wrong on one request of a sign-in. */
export interface StepFailure {
  step: SignInStep;
  reason: string;
  /** a network failure (nothing answered), as opposed to an answer that refused */
  network: boolean;
}

/**
 * The fetch the SDK's `auth()` is given: it passes every request on and notes which step each one belongs to
 * (discovery, registration, token exchange, refresh) and how the failing ones failed — `auth()` itself throws one
 * generic error, or none at all where it falls back (an unreachable metadata URL, a refused refresh).
 */
export class StepTracker {
  failures: StepFailure[] = [];

  /** @param timeoutMs each request's deadline: a server that accepts and never answers cannot hold a sign-in */
  constructor(private readonly timeoutMs = 15_000) {}

  readonly fetch: FetchLike = async (url, init) => {
    const step = stepOf(url, init);
    const deadline = AbortSignal.timeout(this.timeoutMs);
    let response: Response;
    try {
      response = await fetch(url, {
        ...init,
        signal: init?.signal ? AbortSignal.any([init.signal, deadline]) : deadline,
      });
    } catch (error) {
      const why = deadline.aborted
        ? `did not answer within ${this.timeoutMs / 1000} s`
        : `unreachable (${networkCode(error)})`;
      this.failures.push({ step, reason: `${originOf(url)} ${why}`, network: true });
      throw error;
    }
    if (!response.ok && step !== 'discovery')
      this.failures.push({ step, reason: await refusal(response), network: false });
    return response;
  };

  /** The failure to report: the first of a step, else the first network failure, else the last one. */
  reported(step?: SignInStep): StepFailure | undefined {
    return (
      (step && this.failures.find((f) => f.step === step)) ??
      this.failures.find((f) => f.network) ??
      this.failures.at(-1)
    );
  }

  reset(): void {
    this.failures = [];
  }
}

/** Which step a request of `auth()` is: by its well-known path, its JSON body (registration) or its grant type. */
function stepOf(url: string | URL, init?: RequestInit): SignInStep {
  if (String(url).includes('/.well-known/')) return 'discovery';
  const body = init?.body;
  if (body instanceof URLSearchParams) return body.get('grant_type') === 'refresh_token' ? 'refresh' : 'token';
  return typeof body === 'string' ? 'registration' : 'discovery';
}

/** How an authorization server refused: its OAuth error (RFC 6749 §5.2) when it gave one, else the status. */
async function refusal(response: Response): Promise<string> {
  const text = await response
    .clone()
    .text()
    .catch(() => '');
  try {
    const body = JSON.parse(text) as { error?: unknown; error_description?: unknown };
    if (typeof body.error === 'string')
      return `HTTP ${response.status} ${body.error}${typeof body.error_description === 'string' ? ` (${body.error_description.slice(0, 300)})` : ''}`;
  } catch {
    // not JSON: the status says enough
  }
  return `HTTP ${response.status}`;
}

function originOf(url: string | URL): string {
  try {
    return new URL(url).origin;
  } catch {
    return String(url);
  }
}

/** fetch hides the network error (ECONNREFUSED) in `cause` */
function networkCode(error: unknown): string {
  const e = error as Error & { cause?: { code?: string; message?: string } };
  return e.cause?.code ?? e.cause?.message ?? e.message;
}
