/**
 * Security warnings that compare an exchange with the rest of the traffic: tool names that look like another
 * server's (homoglyphs, by Unicode confusables.txt skeletons), a tool list that changed since an earlier session of
 * the same server (a rug pull, with the diff), and a result that holds a secret seen elsewhere in the traffic.
 */
import confusables from 'unicode-confusables';
import type { ExchangeEvent } from '../traffic.js';
import { finding, type Finding } from './findings.js';
import { scanText, walkStrings } from './text-scan.js';
import type { Tool } from './rules.js';

/** A tool list (its first page) as it came: the exchange's number, the session, the tools by name. */
interface SeenList {
  seq: number;
  session: string;
  tools: Map<string, Tool>;
}

export interface SecurityState {
  /** per server: the first tool list of its latest session (what a new session is compared with) */
  lists: Map<string, SeenList>;
  /** per server and session: the session's last tool list (what its next list is compared with) */
  sessionLists: Map<string, SeenList>;
  /** tool-name skeletons seen: which server named which tool */
  skeletons: Map<string, Array<{ server: string; name: string }>>;
  /** secret values seen in requests, and where */
  secrets: Map<string, { seq: number; where: string }>;
}

export const newSecurityState = (): SecurityState => ({
  lists: new Map(),
  sessionLists: new Map(),
  skeletons: new Map(),
  secrets: new Map(),
});

const MAX_SECRETS = 500;
const MAX_SESSION_LISTS = 2_000;
const MAX_SKELETONS = 20_000;
type Result = Record<string, unknown>;
const resultOf = (e: ExchangeEvent): Result | undefined =>
  e.response && 'result' in e.response ? e.response.result : undefined;

/** Where each method's result says things to the model (what scanText reads), by method. */
const SCANNED: Record<string, string> = {
  'tools/list': 'a tool definition',
  'prompts/list': 'a prompt definition',
  'resources/list': 'a resource definition',
  'resources/templates/list': 'a resource template',
  initialize: 'the server’s instructions',
  'tools/call': 'a tool result',
  'resources/read': 'a resource',
  'prompts/get': 'a prompt',
};

export const skeletonOf = (name: string): string =>
  confusables.rectifyConfusion(name.normalize('NFD')).normalize('NFD');

function homoglyphs(e: ExchangeEvent, server: string, state: SecurityState): Finding[] {
  const tools = resultOf(e)?.tools;
  if (e.method !== 'tools/list' || !Array.isArray(tools)) return [];
  const out: Finding[] = [];
  (tools as Tool[]).forEach((tool, i) => {
    if (typeof tool?.name !== 'string') return;
    const name = tool.name;
    const skeleton = skeletonOf(name);
    const path = `response.result.tools[${i}].name`;
    const ascii = !/[^\p{ASCII}]/u.test(name);
    // the impostor is the name with look-alike characters: a plain name whose twin is not plain is the original
    const twins = (state.skeletons.get(skeleton) ?? []).filter(
      (t) => t.name !== name && (!ascii || !/[^\p{ASCII}]/u.test(t.name)),
    );
    if (twins.length > 0) {
      const twin = twins[0];
      out.push(
        finding(
          'security.homoglyph',
          path,
          `tool ${JSON.stringify(name)} looks like ${twin.server === server ? 'this server’s' : `server ${twin.server}’s`} tool ${JSON.stringify(twin.name)}`,
        ),
      );
    } else if (!ascii && skeleton !== name.normalize('NFD'))
      out.push(
        finding(
          'security.homoglyph',
          path,
          `tool name ${JSON.stringify(name)} has look-alike characters: it reads as ${JSON.stringify(skeleton)}`,
        ),
      );
    const known = state.skeletons.get(skeleton) ?? [];
    if (!known.some((t) => t.name === name && t.server === server) && state.skeletons.size < MAX_SKELETONS)
      state.skeletons.set(skeleton, [...known, { server, name }]);
  });
  return out;
}

const describe = (tool: Tool): string =>
  JSON.stringify({ description: tool.description, inputSchema: tool.inputSchema, outputSchema: tool.outputSchema });

/** The changes from one tool list to the next, one line each (`+ added`, `- removed`, `~ changed: what`). */
export function toolListDiff(before: Map<string, Tool>, after: Map<string, Tool>): string[] {
  const lines: string[] = [];
  for (const name of after.keys()) if (!before.has(name)) lines.push(`+ ${name}`);
  for (const name of before.keys()) if (!after.has(name)) lines.push(`- ${name}`);
  for (const [name, tool] of after) {
    const old = before.get(name);
    if (!old || describe(old) === describe(tool)) continue;
    for (const field of ['description', 'inputSchema', 'outputSchema'] as const) {
      if (JSON.stringify(old[field]) === JSON.stringify(tool[field])) continue;
      lines.push(
        `~ ${name}: ${field} changed`,
        `    - ${JSON.stringify(old[field] ?? null)}`,
        `    + ${JSON.stringify(tool[field] ?? null)}`,
      );
    }
  }
  return lines;
}

/** The session as a finding names it: its id's first 8 characters (a stateless list has none: its exchange). */
const sessionLabel = (session: string): string =>
  session.startsWith('#') ? session : `session ${session.slice(0, 8)}`;

function rugPullFinding(before: SeenList, now: Map<string, Tool>, within: boolean): Finding[] {
  const diff = toolListDiff(before.tools, now);
  if (diff.length === 0) return [];
  const counts = ['+', '-'].map((sign) => diff.filter((l) => l.startsWith(sign)).length);
  const changed = new Set(diff.filter((l) => l.startsWith('~')).map((l) => l.split(':')[0].slice(2)));
  const since = within
    ? `within this session, since its list in #${before.seq}`
    : `since an earlier session of this server (its first list, #${before.seq}, ${sessionLabel(before.session)})`;
  const what = [
    ...(counts[0] ? [`${counts[0]} added`] : []),
    ...(counts[1] ? [`${counts[1]} removed`] : []),
    ...(changed.size ? [`${[...changed].join(', ')} changed`] : []),
  ];
  return [
    finding(
      'security.rug-pull',
      'response.result.tools',
      `the tool list changed ${since}: ${what.join(', ')}`,
      diff.join('\n'),
    ),
  ];
}

/**
 * A tool list that differs from what the client was shown before: the session's previous list (a description
 * changed mid-session, with or without list_changed), or for a session's first list, the first list of the server's
 * latest earlier session (not its last: a session that changed its tools was said there; a new session that shows the
 * first tools again is no change).
 */
function rugPull(e: ExchangeEvent, server: string, state: SecurityState): Finding[] {
  const tools = resultOf(e)?.tools;
  if (e.method !== 'tools/list' || !Array.isArray(tools) || e.request.params?.cursor !== undefined) return [];
  const session = e.sessionId ?? `#${e.seq}`;
  const now = new Map<string, Tool>();
  for (const tool of tools as Tool[])
    if (typeof tool?.name === 'string' && !now.has(tool.name)) now.set(tool.name, tool);
  const seen: SeenList = { seq: e.seq, session, tools: now };
  const key = `${server}\u0000${session}`;
  const previous = state.sessionLists.get(key);
  state.sessionLists.delete(key); // most recent last: the oldest session goes first
  state.sessionLists.set(key, seen);
  if (state.sessionLists.size > MAX_SESSION_LISTS)
    state.sessionLists.delete(state.sessionLists.keys().next().value as string);
  if (previous) return rugPullFinding(previous, now, true);
  const earlier = state.lists.get(server);
  state.lists.set(server, seen);
  return earlier ? rugPullFinding(earlier, now, false) : [];
}

export const SECRET_KEY = /(api[_-]?key|apikey|token|secret|password|passwd|credential|authorization|private[_-]?key)/i;
/** Well-known credential formats (a value shaped like one is a secret wherever it is sent) */
export const SECRET_FORMATS =
  /\b(sk-[A-Za-z0-9_-]{20,}|gh[pousr]_[A-Za-z0-9]{30,}|xox[abprs]-[A-Za-z0-9-]{10,}|AKIA[0-9A-Z]{16}|AIza[0-9A-Za-z_-]{35}|eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,})\b/g;

const SECRET_FORMAT = new RegExp(SECRET_FORMATS.source);

function learnSecrets(e: ExchangeEvent, state: SecurityState): void {
  walkStrings(e.request.params, 'request.params', (path, text, key) => {
    if (text.length < 8) return;
    const found =
      SECRET_KEY.test(key) && text !== '[REDACTED]'
        ? [text]
        : SECRET_FORMAT.test(text)
          ? [...text.matchAll(SECRET_FORMATS)].map((m) => m[0])
          : [];
    for (const secret of found)
      if (!state.secrets.has(secret) && state.secrets.size < MAX_SECRETS)
        state.secrets.set(secret, { seq: e.seq, where: `${e.method}${e.tool ? ` ${e.tool}` : ''}, ${path()}` });
  });
}

function secretEcho(e: ExchangeEvent, state: SecurityState): Finding[] {
  const result = resultOf(e);
  if (!result || state.secrets.size === 0 || !['tools/call', 'resources/read', 'prompts/get'].includes(e.method))
    return [];
  const out: Finding[] = [];
  walkStrings(result, 'response.result', (path, text) => {
    if (text.length < 8) return;
    for (const [secret, seen] of state.secrets)
      if (seen.seq !== e.seq && text.includes(secret))
        out.push(
          finding(
            'security.secret-echo',
            path(),
            `holds a secret (${secret.length} characters, not shown) first sent in #${seen.seq} (${seen.where})`,
          ),
        );
  });
  return out;
}

/** Hidden and instruction-like text in what the answer says to the model (a pure function of the answer). */
export function scanAnswer(e: ExchangeEvent): Finding[] {
  const result = resultOf(e);
  const where = SCANNED[e.method];
  if (!where || !result) return [];
  return scanText(e.method === 'initialize' ? { instructions: result.instructions } : result, 'response.result', where);
}

/**
 * The security findings of one exchange of `server` that compare it with the rest of the traffic (the state is
 * updated); the answer's own text is scanned by scanAnswer.
 */
export function checkSecurity(e: ExchangeEvent, server: string, state: SecurityState): Finding[] {
  learnSecrets(e, state);
  return [...homoglyphs(e, server, state), ...rugPull(e, server, state), ...secretEcho(e, state)];
}
