import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { MODE_TRAITS, type Mode } from '../../../shared/modes.js';
import { ProxyConfigSchema, type ProxyField } from '../../../shared/proxy-config.js';
import type { CreateSession, ToolRule } from '../../../shared/rules/schema.js';
import { CassetteMissingError, HttpError } from '../errors.js';
import { REDACTED } from '../redact.js';
import { RestSession, type SessionSettings } from './rest-session.js';
import { newSessionId } from './session-id.js';

const digest = (s: string): Buffer => createHash('sha256').update(s).digest();

/** What one `serve` holds at most: sessions and the size of one session's rules (tools + instructions, as JSON). */
export interface SessionLimits {
  maxSessions: number;
  maxRuleSetBytes: number;
}
export const DEFAULT_LIMITS: SessionLimits = { maxSessions: 200, maxRuleSetBytes: 256 * 1024 };

/** An agent's credential: 256 random bits (the readable session id is a name, never a credential). */
export const newAgentToken = (): string => randomBytes(32).toString('base64url');

/** Constant-time comparison of two secrets (hashing first makes the lengths equal). */
function sameSecret(given: string, expected: string): boolean {
  return timingSafeEqual(digest(given), digest(expected));
}

export function bearerToken(req: IncomingMessage): string | undefined {
  const auth = req.headers.authorization;
  const m = auth ? /^Bearer\s+(.+)$/i.exec(auth.trim()) : null;
  return m ? m[1] : undefined;
}

/** A session's mode when the body names none (as MiMCP's do): proxy-only with an upstream, replay without. */
const sessionMode = (config: CreateSession): Mode => config.mode ?? (config.upstream ? 'proxy-only' : 'replay');

/** the REST body's names for the proxy configuration's fields */
const SESSION_FIELDS: Partial<Record<ProxyField, string>> = {
  upstreamUrl: 'upstream',
  upstreamCommand: 'upstream.command',
  cacheDir: 'cassette',
};

/**
 * What a session's mode needs of its sources, checked by the one proxy configuration schema (a mode that forwards
 * needs an upstream) and named by the REST body's fields; a mode that records needs a cassette folder too (`serve`
 * has no default one).
 */
function checkSources(config: CreateSession, mode: Mode): void {
  const proxy = {
    mode,
    upstreamUrl: config.upstream?.url,
    upstreamCommand: config.upstream?.command,
    cacheDir: config.cassette,
  };
  const parsed = ProxyConfigSchema.safeParse(proxy);
  if (!parsed.success) {
    const named = parsed.error.issues.map(
      (issue) => `${SESSION_FIELDS[issue.path[0] as ProxyField] ?? issue.path.join('.')}: ${issue.message}`,
    );
    throw new HttpError(400, named.join('; '));
  }
  if (MODE_TRAITS[mode].records && !config.cassette) throw new HttpError(400, `cassette: required in ${mode} mode`);
}

/** The `serve` sessions, created over REST before the agent connects. */
export class SessionManager {
  private readonly sessions = new Map<string, RestSession>();
  /** sha256(agent token) → session; the token itself is kept nowhere */
  private readonly byToken = new Map<string, RestSession>();
  private readonly tokenDigest = new Map<string, string>();

  constructor(
    private readonly settings: SessionSettings,
    private readonly apiToken: string | undefined,
    private readonly baseUrl: () => string,
    private readonly limits: SessionLimits = DEFAULT_LIMITS,
  ) {}

  get size(): number {
    return this.sessions.size;
  }

  authorizedForApi(req: IncomingMessage): boolean {
    if (!this.apiToken) return true;
    const given = bearerToken(req);
    return given !== undefined && sameSecret(given, this.apiToken);
  }

  /** A session by its id (REST paths). */
  get(id: string): RestSession | undefined {
    return this.sessions.get(id);
  }

  /** The session an agent's token opens (looked up by its digest: no comparison of the secret itself). */
  byAgentToken(token: string): RestSession | undefined {
    return this.byToken.get(digest(token).toString('hex'));
  }

  /** Refuses a rule set over the size limit (413). */
  checkRuleSetSize(tools: unknown, instructions?: string | null): void {
    const bytes = Buffer.byteLength(JSON.stringify(tools ?? [])) + Buffer.byteLength(instructions ?? '');
    if (bytes > this.limits.maxRuleSetBytes) {
      throw new HttpError(
        413,
        `tools: the rule set is ${bytes} bytes; a session's rules (tools and instructions) may take at most ${this.limits.maxRuleSetBytes} bytes`,
      );
    }
  }

  list(): RestSession[] {
    return [...this.sessions.values()];
  }

  /** Creates a session; resolves with it and its agent token (shown this once). */
  async create(config: CreateSession): Promise<{ session: RestSession; token: string }> {
    if (this.sessions.size >= this.limits.maxSessions) {
      throw new HttpError(
        429,
        `too many sessions: this server holds at most ${this.limits.maxSessions}; delete finished ones (DELETE /api/sessions/{sid})`,
      );
    }
    this.checkRuleSetSize(config.tools, config.instructions);
    this.checkCommand(config.upstream);
    const mode = sessionMode(config);
    checkSources(config, mode);
    if (config.cassette?.includes('\0')) throw new HttpError(400, 'cassette: must be a folder path');
    this.checkSyntheticTools(config.tools, Boolean(config.upstream) || Boolean(config.cassette), 'tools');
    const id = newSessionId((candidate) => this.sessions.has(candidate));
    const session = await RestSession.create(id, { ...config, mode }, this.settings).catch((error: Error) => {
      if (error instanceof CassetteMissingError) throw new HttpError(400, `cassette: ${error.message}`);
      throw error;
    });
    if (this.sessions.size >= this.limits.maxSessions) {
      await session.close(); // others were created while this one opened
      throw new HttpError(429, `too many sessions: this server holds at most ${this.limits.maxSessions}`);
    }
    const token = newAgentToken();
    const hex = digest(token).toString('hex');
    this.sessions.set(id, session);
    this.byToken.set(hex, session);
    this.tokenDigest.set(id, hex);
    return { session, token };
  }

  /** A command upstream runs with this server's rights: only for a REST API that asks for its token. */
  checkCommand(upstream: { command?: string } | null | undefined): void {
    if (upstream?.command !== undefined && !this.apiToken)
      throw new HttpError(
        403,
        'upstream.command: a stdio upstream needs the REST API token (serve was started with --no-auth)',
      );
  }

  /** Without an upstream or a cassette every tool is synthetic and must say what it takes. */
  checkSyntheticTools(tools: ToolRule[], hasSource: boolean, field: string): void {
    if (hasSource) return;
    const i = tools.findIndex((t) => !t.input_schema);
    if (i >= 0)
      throw new HttpError(
        400,
        `${field}.${i}.input_schema: required for a synthetic tool (the session has no upstream)`,
      );
  }

  async delete(id: string): Promise<void> {
    const session = this.sessions.get(id);
    this.sessions.delete(id);
    const hex = this.tokenDigest.get(id);
    this.tokenDigest.delete(id);
    if (hex) this.byToken.delete(hex);
    await session?.close();
  }

  /**
   * What to give the agent: URL + headers, or a URL with the token in its path for clients that take only a URL.
   * The token is shown once, when the session is created; later views of the session mask it.
   */
  mcpAccess(token?: string): Record<string, unknown> {
    const shown = token ?? REDACTED;
    return {
      url: `${this.baseUrl()}/mcp`,
      headers: { Authorization: `Bearer ${shown}` },
      path_url: `${this.baseUrl()}/s/${token ? encodeURIComponent(token) : REDACTED}/mcp`,
      ...(token ? { token } : {}),
    };
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.sessions.keys()].map((id) => this.delete(id)));
  }
}
