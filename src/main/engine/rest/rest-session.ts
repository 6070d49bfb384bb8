import { MODE_TRAITS, type Mode } from '../../../shared/modes.js';
import type { CreateSession, MergedTool, PutTools, ToolRule, UpstreamConfig } from '../../../shared/rules/schema.js';
import type { ExchangeEvent } from '../../../shared/traffic.js';
import { REDACTED } from '../redact.js';
import { createEndpoint, type BuiltEndpoint } from '../endpoint-factory.js';
import { HttpError } from '../errors.js';
import { commandSpec } from '../upstream/command.js';
import { HttpUpstream } from '../upstream/http-upstream.js';
import { openUpstream, type OpenedUpstream } from '../upstream/open.js';
import { UpstreamSupervisor } from './supervisor.js';
import { prefixed, type Log } from '../log.js';
import { hasOwnCredentials, type CredentialStore } from '../upstream/oauth/credentials.js';
import { signInFor, type UpstreamSignIn } from '../upstream/oauth/sign-in.js';

export interface SessionSettings {
  upstreamTimeoutMs: number;
  /** the maximum total time of one upstream call, progress or not */
  upstreamMaxTimeMs?: number;
  connectTimeoutMs: number;
  maxRecordedCalls: number;
  defaultInstructions?: string;
  supervisorIntervalMs: number;
  serverInfo: { name: string; version: string };
  /** where sessions keep their sign-ins to OAuth-protected upstreams (serve's data folder); none: they never sign in */
  signIns?: CredentialStore;
  log: Log;
  onExchange?: (sessionId: string, event: ExchangeEvent) => void;
}

export interface RecordedCall {
  tool: string;
  arguments: unknown;
  /** null when the call was refused (hidden or unknown tool) */
  behavior: 'relay' | 'override' | 'inject' | null;
  response: unknown;
  is_error: boolean;
  duration_ms: number;
  at: string;
}

/** A MiMCP-style session: its endpoint (rules + upstream and/or cassette), its supervised upstream, its call log. */
export class RestSession {
  readonly createdAt = new Date().toISOString();
  readonly calls: RecordedCall[] = [];
  agentsConnected = false;
  private upstreamConfig: UpstreamConfig | null;
  private supervisor?: UpstreamSupervisor;
  /** the session's upstream, opened as the CLI opens one (a legacy SSE server or a command is bridged) */
  private opened?: OpenedUpstream;
  /** the upstream's OAuth sign-in, when it is a URL that may answer 401 */
  private signIn?: UpstreamSignIn;
  private overlayTools: ToolRule[];

  private constructor(
    readonly id: string,
    readonly config: CreateSession & { mode: Mode },
    readonly built: BuiltEndpoint,
    private readonly settings: SessionSettings,
    opened: OpenedUpstream | undefined,
    signIn: UpstreamSignIn | undefined,
  ) {
    this.opened = opened;
    this.signIn = signIn;
    this.upstreamConfig = config.upstream ?? null;
    this.overlayTools = config.tools;
    built.events.on('exchange', (event) => this.observe(event));
    this.startSupervisor();
  }

  static async create(
    id: string,
    config: CreateSession & { mode: Mode },
    settings: SessionSettings,
  ): Promise<RestSession> {
    const { mode } = config;
    const signIn = MODE_TRAITS[mode].forwards ? sessionSignIn(config.upstream, settings) : undefined;
    const opened = config.upstream ? await openSessionUpstream(config.upstream, id, settings, signIn) : undefined;
    const built = await createEndpoint({
      mode,
      upstreamUrl: opened?.url,
      upstreamDispatch: opened?.bridge?.dispatch,
      upstreamHeaders: opened?.headers,
      upstreamAuth: opened?.bridge ? undefined : signIn,
      upstreamTimeoutMs: settings.upstreamTimeoutMs,
      upstreamMaxTimeMs: settings.upstreamMaxTimeMs,
      cacheDir: config.cassette,
      rules: {
        overlay: { tools: config.tools, passthrough: config.passthrough },
        instructions: config.instructions ?? settings.defaultInstructions,
      },
      serverInfo: settings.serverInfo,
      onLog: (line, level) => settings.log(`[${id}] ${line}`, level),
    }).catch(async (error: Error) => {
      await opened?.close(); // nothing is left open
      throw error;
    });
    startSignIn(opened, signIn);
    return new RestSession(id, config, built, settings, opened, signIn);
  }

  get endpoint() {
    return this.built.endpoint;
  }

  get status(): 'pending' | 'connected' {
    return this.agentsConnected ? 'connected' : 'pending';
  }

  /** The merged tool view (upstream tools as last seen + overlay). */
  tools(): Array<Record<string, unknown>> {
    const upstreamTools = this.upstreamConfig ? this.built.memory.upstreamTools : undefined;
    return this.built.rules!.merged(upstreamTools).map(describeTool);
  }

  get passthrough(): boolean {
    return this.built.rules!.current.passthrough;
  }

  /** Replaces the overlay (and maybe the upstream); connected agents get notifications/tools/list_changed. */
  async replaceTools(put: PutTools): Promise<number> {
    const signIn = sessionSignIn(put.upstream, this.settings);
    const opened = put.upstream ? await openSessionUpstream(put.upstream, this.id, this.settings, signIn) : undefined;
    this.overlayTools = put.tools;
    this.built.rules!.replace({ tools: put.tools, passthrough: put.passthrough });
    if (put.upstream !== undefined) {
      this.upstreamConfig = put.upstream;
      this.supervisor?.stop();
      const previous = this.opened;
      this.opened = opened;
      this.signIn = signIn;
      const limits = { callMs: this.settings.upstreamTimeoutMs, totalMs: this.settings.upstreamMaxTimeMs };
      this.endpoint.setUpstream(
        opened
          ? new HttpUpstream(
              opened.url,
              opened.headers,
              limits,
              opened.bridge ? undefined : signIn,
              opened.bridge?.dispatch,
            )
          : undefined,
      );
      startSignIn(opened, signIn);
      void previous?.close();
      this.startSupervisor();
    }
    return this.endpoint.notifyAll('notifications/tools/list_changed');
  }

  summary(): Record<string, unknown> {
    return {
      session_id: this.id,
      name: this.config.name ?? null,
      status: this.status,
      mode: this.config.mode,
      created_at: this.createdAt,
      upstream: this.upstreamConfig
        ? { ...upstreamName(this.upstreamConfig), state: this.supervisor?.state ?? 'connecting' }
        : null,
      calls: this.calls.length,
    };
  }

  detail(mcp: Record<string, unknown>): Record<string, unknown> {
    const s = this.supervisor;
    return {
      ...this.summary(),
      cassette: this.config.cassette ?? null,
      instructions: this.config.instructions ?? this.settings.defaultInstructions ?? null,
      passthrough: this.passthrough,
      overlay: this.overlayTools,
      mcp,
      agents: this.endpoint.sessions.size,
      upstream: this.upstreamConfig
        ? {
            ...upstreamName(this.upstreamConfig),
            headers: Object.fromEntries(Object.keys(this.upstreamConfig.headers).map((name) => [name, REDACTED])),
            state: s?.state ?? 'connecting',
            last_error: s?.lastError ?? null,
            attempts: s?.attempts ?? 0,
            connected_at: s?.connectedAt ?? null,
          }
        : null,
      sign_in: this.signIn ? signInDetail(this.signIn) : null,
    };
  }

  async close(): Promise<void> {
    this.supervisor?.stop();
    await this.built.close();
    await this.opened?.close();
  }

  private startSupervisor(): void {
    this.supervisor = undefined;
    const upstream = this.endpoint.upstream;
    if (!upstream) return;
    this.supervisor = new UpstreamSupervisor(
      upstream.url,
      this.opened?.label ?? upstream.displayUrl,
      this.opened?.headers ?? {},
      {
        auth: this.opened?.bridge ? undefined : this.signIn,
        connectTimeoutMs: this.settings.connectTimeoutMs,
        intervalMs: this.settings.supervisorIntervalMs,
        onTools: (tools) => {
          this.built.memory.upstreamTools = tools;
        },
        log: prefixed(this.settings.log, `[${this.id}] `),
      },
    );
  }

  private observe(event: ExchangeEvent): void {
    this.settings.onExchange?.(this.id, event);
    if (event.method === 'initialize' && event.response && 'result' in event.response) this.agentsConnected = true;
    if (event.method !== 'tools/call') return;
    const response =
      event.response && 'result' in event.response
        ? event.response.result
        : event.response && 'error' in event.response
          ? { error: event.response.error }
          : null;
    this.calls.push({
      tool: event.tool ?? '',
      arguments: event.request.params?.arguments ?? {},
      behavior: event.behavior ?? null,
      response,
      is_error: !event.response || 'error' in event.response || event.response.result.isError === true,
      duration_ms: event.durationMs,
      at: new Date(event.startedAt).toISOString(),
    });
    if (this.calls.length > this.settings.maxRecordedCalls)
      this.calls.splice(0, this.calls.length - this.settings.maxRecordedCalls);
  }
}

/** How a session names its upstream: the URL, or the command (beyond MiMCP). */
function upstreamName(config: UpstreamConfig): { url: string } | { command: string } {
  return config.url !== undefined ? { url: config.url } : { command: config.command as string };
}

/** A url upstream's sign-in (none with `oauth: false`, credentials in its headers, or no data folder to keep tokens in). */
function sessionSignIn(
  config: UpstreamConfig | null | undefined,
  settings: SessionSettings,
): UpstreamSignIn | undefined {
  if (!config?.url || config.oauth === false || !settings.signIns || hasOwnCredentials(config.url, config.headers))
    return undefined;
  const client = config.oauth
    ? { clientId: config.oauth.client_id, clientSecret: config.oauth.client_secret }
    : undefined;
  return signInFor(config.url, { store: settings.signIns, client, log: settings.log });
}

/** An upstream that answered 401: its sign-in starts now, so that the session detail shows the URL to open. */
function startSignIn(opened: OpenedUpstream | undefined, signIn: UpstreamSignIn | undefined): void {
  if (opened?.needsSignIn && signIn) void signIn.signIn().catch(() => {}); // the failure is the sign-in's state
}

/** The session detail's `sign_in`: the state, the URL to open while one waits, who signed in (no token, ever). */
function signInDetail(signIn: UpstreamSignIn): Record<string, unknown> {
  const info = signIn.info();
  return {
    state: info.state,
    url: info.url ?? null,
    user: info.user ?? null,
    expires_at: info.expiresAt ? new Date(info.expiresAt).toISOString() : null,
    scope: info.scope ?? null,
    step: info.step ?? null,
    error: info.error ?? null,
  };
}

/** Opens a session's upstream: detected and bridged as the CLI does; one not reachable yet is retried by the supervisor. */
async function openSessionUpstream(
  config: UpstreamConfig,
  id: string,
  settings: SessionSettings,
  auth?: UpstreamSignIn,
): Promise<OpenedUpstream> {
  let spec;
  try {
    spec =
      config.command !== undefined
        ? commandSpec(config.command)
        : { url: config.url as string, headers: config.headers };
  } catch (error) {
    throw new HttpError(400, `upstream.command: ${(error as Error).message}`);
  }
  try {
    return await openUpstream(spec, {
      log: (line, level) => settings.log(`[${id}] ${line}`, level),
      probe: false,
      lenient: true,
      timeoutMs: settings.connectTimeoutMs,
      auth,
    });
  } catch (error) {
    throw new HttpError(400, `upstream: ${(error as Error).message}`);
  }
}

function describeTool(tool: MergedTool): Record<string, unknown> {
  return {
    name: tool.name,
    description: tool.description ?? null,
    input_schema: tool.inputSchema,
    behavior: tool.behavior,
    origin: tool.origin,
  };
}
