import { z } from 'zod';
import { MODE_TRAITS, MODES, type Mode } from './modes.js';
import { BROWSER_ORIGIN_HINT, isBrowserOrigin } from './origins.js';
import { isReplayTiming, REPLAY_TIMING_HINT } from './replay-timing.js';
import { RulesFileSchema } from './rules/schema.js';
import { MAX_UPSTREAM_MAX_TIME_S, MAX_UPSTREAM_TIMEOUT_S } from './upstream-limits.js';

/**
 * A proxy's configuration, checked by one schema wherever one is made: the app's proxies API (proxies.create, the
 * workspace file), the New proxy form before anything is sent, the CLI's flags (cli/options.ts) and `serve`'s sessions
 * (rest/session-manager.ts). Its messages are in the words of the New proxy form, under the form's field labels
 * ("Upstream URL: not a URL"), never the API's names (upstreamUrl, cacheDir); the CLI and `serve` put their own names
 * for the fields in front of the same messages.
 */
export const PROXY_FIELD_LABELS = {
  name: 'Name',
  mode: 'Mode',
  upstreamUrl: 'Upstream URL',
  upstreamCommand: 'stdio command',
  cacheDir: 'Cassette folder',
  port: 'Port',
  rules: 'Rules',
  replayTiming: 'Replay timing',
  strict: 'Strict',
  allowedOrigins: 'Browser origins',
  upstreamTimeoutS: 'Upstream timeout',
  upstreamMaxTimeS: 'Upstream max time',
  oauth: 'OAuth client ID',
} as const;
export type ProxyField = keyof typeof PROXY_FIELD_LABELS;

/** the longest stdio command line a proxy takes (the same for `serve`'s upstream.command) */
export const MAX_COMMAND_CHARS = 4096;
/** the same, as the form says it; not toLocaleString, whose first call loads ICU's number data (~30 ms of every start) */
const MAX_COMMAND_TEXT = '4,096';

function urlProblem(value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '') return 'give the upstream server’s URL';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'not a URL (e.g. http://127.0.0.1:3000/mcp)';
  }
  return url.protocol === 'http:' || url.protocol === 'https:'
    ? 'not a valid http(s) URL'
    : `must start with http:// or https:// (not ${url.protocol}//)`;
}

const EACH_ORIGIN = `each one ${BROWSER_ORIGIN_HINT}`;
const NOT_SECONDS = 'a number of seconds (0: no limit; empty: the default)';
const CLIENT_ID_HINT = 'a client id of at most 1,000 characters, or leave it empty (mcp-rewind then registers itself)';
const secondsUpTo = (max: number): { error: string } => ({ error: `seconds from 0 (no limit) to ${max}` });

/** "A mode that forwards needs an upstream", said once (the schema below; the engine's startProxy repeats it to its callers). */
export const missingUpstream = (mode: Mode): string =>
  `give the upstream server’s URL, or a stdio command, in ${mode} mode`;

/**
 * What the fields need together: a mode that forwards needs an upstream, a URL or a command, not both. Checked once
 * every field has its shape, so a form shows a field's own problem first.
 */
function checkUpstream(
  config: { mode: Mode; upstreamUrl?: string; upstreamCommand?: string },
  ctx: z.RefinementCtx,
): void {
  if (MODE_TRAITS[config.mode].forwards && !config.upstreamUrl && !config.upstreamCommand)
    ctx.addIssue({ code: 'custom', path: ['upstreamUrl'], message: missingUpstream(config.mode) });
  if (config.upstreamUrl && config.upstreamCommand)
    ctx.addIssue({
      code: 'custom',
      path: ['upstreamCommand'],
      message: 'give either an Upstream URL or a stdio command, not both',
    });
}

export const ProxyConfigSchema = z
  .strictObject({
    name: z
      .string({ error: 'give a name, or leave it empty' })
      .min(1)
      .max(100, { error: 'at most 100 characters' })
      .optional(),
    mode: z.enum(MODES, { error: 'record, replay, hybrid or proxy-only' }),
    /** upstream MCP server (Streamable HTTP or legacy HTTP+SSE, detected); a mode that forwards needs it or upstreamCommand */
    upstreamUrl: z.url({ protocol: /^https?$/, error: (issue) => urlProblem(issue.input) }).optional(),
    /** an stdio MCP server to spawn as the upstream instead, e.g. `npx -y @modelcontextprotocol/server-everything` */
    upstreamCommand: z
      .string({ error: `a command line of at most ${MAX_COMMAND_TEXT} characters` })
      .min(1)
      .max(MAX_COMMAND_CHARS)
      .optional(),
    /** cassette folder (empty: the default one); unused where the mode has no cassette (proxy-only) */
    cacheDir: z.string({ error: 'give a folder, or leave it empty for the default one' }).min(1).optional(),
    port: z
      .number({ error: 'a whole number from 0 to 65535 (empty or 0: any free port)' })
      .int()
      .min(0)
      .max(65535)
      .default(0),
    rules: RulesFileSchema.optional(),
    /** modes that replay: how long replayed answers take (none, recorded, x<speed>), as --replay-timing */
    replayTiming: z
      .string({ error: REPLAY_TIMING_HINT })
      .refine(isReplayTiming, { error: REPLAY_TIMING_HINT })
      .optional(),
    /** modes that replay: a miss is a JSON-RPC error naming the closest recorded key and what differs, as --strict */
    strict: z.boolean({ error: 'on or off' }).optional(),
    /**
     * browser pages that may call this proxy (a browser-based MCP client), as --allowed-origin: any other request that
     * carries an Origin is refused (403); requests without one (agents, SDK clients, curl) need none
     */
    allowedOrigins: z
      .array(z.string({ error: EACH_ORIGIN }).refine(isBrowserOrigin, { error: EACH_ORIGIN }), { error: EACH_ORIGIN })
      .max(20, { error: 'at most 20 origins' })
      .optional(),
    /** modes that forward: seconds an upstream call may go without an answer or a progress notification (0: no limit; default 60) */
    upstreamTimeoutS: z
      .number({ error: NOT_SECONDS })
      .min(0, secondsUpTo(MAX_UPSTREAM_TIMEOUT_S))
      .max(MAX_UPSTREAM_TIMEOUT_S, secondsUpTo(MAX_UPSTREAM_TIMEOUT_S))
      .optional(),
    /** modes that forward: seconds one upstream call may take in all, progress or not (0: no limit; default 600) */
    upstreamMaxTimeS: z
      .number({ error: NOT_SECONDS })
      .min(0, secondsUpTo(MAX_UPSTREAM_MAX_TIME_S))
      .max(MAX_UPSTREAM_MAX_TIME_S, secondsUpTo(MAX_UPSTREAM_MAX_TIME_S))
      .optional(),
    /**
     * an upstream URL that answers 401: the proxy signs in as its OAuth client (default); `disabled`: never (the 401
     * reaches the client); `clientId`: a client registered with the upstream's authorization server (public, PKCE)
     */
    oauth: z
      .strictObject(
        {
          disabled: z.boolean({ error: 'on or off' }).optional(),
          clientId: z
            .string({ error: CLIENT_ID_HINT })
            .min(1, { error: CLIENT_ID_HINT })
            .max(1000, { error: CLIENT_ID_HINT })
            .optional(),
        },
        { error: CLIENT_ID_HINT },
      )
      .optional(),
  })
  .superRefine(checkUpstream, { when: (payload) => payload.issues.length === 0 });
export type ProxyConfig = z.infer<typeof ProxyConfigSchema>;

/** Problems by field; `form` holds what belongs to no single field. */
export type ProxyIssues = Partial<Record<ProxyField | 'form', string>>;

/** The schema's issues by field (the first one of each). */
export function proxyIssuesOf(error: z.ZodError): ProxyIssues {
  const issues: ProxyIssues = {};
  for (const issue of error.issues) {
    const head = issue.path[0];
    if (typeof head === 'string' && Object.hasOwn(PROXY_FIELD_LABELS, head))
      issues[head as ProxyField] ??= issue.message;
    else if (issue.code === 'unrecognized_keys')
      issues.form ??= `unknown setting${issue.keys.length > 1 ? 's' : ''}: ${issue.keys.join(', ')}`;
    else issues.form ??= issue.message;
  }
  return issues;
}

/** What the schema says of one field's value alone (a form's text that does not convert: "12x" for a port), if anything. */
export function fieldProblem(field: Exclude<ProxyField, 'mode'>, value: unknown): string | undefined {
  return ProxyConfigSchema.shape[field].safeParse(value).error?.issues[0]?.message;
}

/** Checks a proxy configuration as the engine will. An empty cassette folder is fine: the default is used. */
export function proxyConfigIssues(input: unknown): ProxyIssues {
  if (typeof input !== 'object' || input === null || Array.isArray(input))
    return { form: 'expected the proxy’s settings as an object' };
  const parsed = ProxyConfigSchema.safeParse(input);
  return parsed.success ? {} : proxyIssuesOf(parsed.error);
}

/** One line naming each problem by its field label: "Upstream URL: not a URL; Port: …". */
export function describeProxyIssues(issues: ProxyIssues): string {
  return Object.entries(issues)
    .map(([field, message]) => (field === 'form' ? message : `${PROXY_FIELD_LABELS[field as ProxyField]}: ${message}`))
    .join('; ');
}

/** The configuration, or an Error naming the fields (for the engine's proxies.create). */
export function checkProxyConfig(input: unknown): ProxyConfig {
  const issues = proxyConfigIssues(input);
  if (Object.keys(issues).length > 0) throw new Error(describeProxyIssues(issues));
  return ProxyConfigSchema.parse(input);
}
