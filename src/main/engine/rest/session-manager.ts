import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { CreateSession, ToolRule } from '../../../shared/rules/schema.js';
import { HttpError } from '../errors.js';
import { RestSession, type SessionSettings } from './rest-session.js';
import { newSessionId } from './session-id.js';

const digest = (s: string): Buffer => createHash('sha256').update(s).digest();

/** Constant-time comparison of two secrets (hashing first makes the lengths equal). */
export function sameSecret(given: string, expected: string): boolean {
  return timingSafeEqual(digest(given), digest(expected));
}

export function bearerToken(req: IncomingMessage): string | undefined {
  const auth = req.headers.authorization;
  const m = auth ? /^Bearer\s+(.+)$/i.exec(auth.trim()) : null;
  return m ? m[1] : undefined;
}

/** The `serve` sessions, created over REST before the agent connects. */
export class SessionManager {
  private readonly sessions = new Map<string, RestSession>();

  constructor(
    private readonly settings: SessionSettings,
    private readonly apiToken: string | undefined,
    private readonly baseUrl: () => string,
  ) {}

  get size(): number {
    return this.sessions.size;
  }

  authorizedForApi(req: IncomingMessage): boolean {
    if (!this.apiToken) return true;
    const given = bearerToken(req);
    return given !== undefined && sameSecret(given, this.apiToken);
  }

  /** Finds a session by the token an agent presents (constant-time per candidate is not needed: ids are lookups). */
  get(id: string): RestSession | undefined {
    return this.sessions.get(id);
  }

  list(): RestSession[] {
    return [...this.sessions.values()];
  }

  async create(config: CreateSession): Promise<RestSession> {
    const mode = config.mode ?? (config.upstream ? 'proxy-only' : 'replay');
    if ((mode === 'record' || mode === 'hybrid' || mode === 'proxy-only') && !config.upstream) throw new HttpError(400, `upstream: required in ${mode} mode`);
    if ((mode === 'record' || mode === 'hybrid') && !config.cassette) throw new HttpError(400, `cassette: required in ${mode} mode`);
    if (config.cassette?.includes('\0')) throw new HttpError(400, 'cassette: must be a folder path');
    this.checkSyntheticTools(config.tools, Boolean(config.upstream) || Boolean(config.cassette), 'tools');
    const id = newSessionId((candidate) => this.sessions.has(candidate));
    const session = await RestSession.create(id, config, this.settings);
    this.sessions.set(id, session);
    return session;
  }

  /** Without an upstream or a cassette every tool is synthetic and must say what it takes. */
  checkSyntheticTools(tools: ToolRule[], hasSource: boolean, field: string): void {
    if (hasSource) return;
    const i = tools.findIndex((t) => !t.input_schema);
    if (i >= 0) throw new HttpError(400, `${field}.${i}.input_schema: required for a synthetic tool (the session has no upstream)`);
  }

  async delete(id: string): Promise<void> {
    const session = this.sessions.get(id);
    this.sessions.delete(id);
    await session?.close();
  }

  /** What to give the agent: URL + headers, or a URL with the token in its path for clients that take only a URL. */
  mcpAccess(id: string): Record<string, unknown> {
    return { url: `${this.baseUrl()}/mcp`, headers: { Authorization: `Bearer ${id}` }, path_url: `${this.baseUrl()}/s/${encodeURIComponent(id)}/mcp` };
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.sessions.keys()].map((id) => this.delete(id)));
  }
}
