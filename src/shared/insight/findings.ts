/**
 * What the insight checks say about an exchange (issue 26): protocol problems, security warnings, context cost.
 * Pure data, shared by the engine's observer, `mcp-rewind lint`, the MCP server for agents and the renderer.
 */

export const SEVERITIES = ['error', 'warning', 'info'] as const;
export type Severity = (typeof SEVERITIES)[number];

/** One finding: which rule, how bad, where in the exchange (a JSON path), what, and the spec section it rests on. */
export interface Finding {
  id: RuleId;
  severity: Severity;
  /** where: `request.params.name`, `response.result.tools[2].description`, `stream[0].params.progressToken` */
  path: string;
  message: string;
  /** the specification section the rule rests on */
  spec: string;
  /** a longer explanation when there is one: the diff of a rug pull, the hidden text decoded */
  detail?: string;
}

/** What the checks found on one exchange, and its size in tokens (lists, results, reads). */
export interface ExchangeInsight {
  problems: Finding[];
  /** tokens of what this exchange puts in the model's context (its result), when it is a list, a result or a read */
  tokens?: number;
}

export interface ProblemCounts {
  error: number;
  warning: number;
  info: number;
}

const SPEC = 'https://modelcontextprotocol.io/specification/2025-11-25';

/** Every rule: its id, severity and spec section. The checks name rules only through this table. */
export const RULES = {
  'schema.request': { severity: 'error', title: 'request does not match the protocol schema', spec: `${SPEC}/schema` },
  'schema.result': { severity: 'error', title: 'result does not match the protocol schema', spec: `${SPEC}/schema` },
  'schema.error': {
    severity: 'error',
    title: 'error response does not match the protocol schema',
    spec: `${SPEC}/basic#responses`,
  },
  'schema.notification': {
    severity: 'error',
    title: 'notification does not match the protocol schema',
    spec: `${SPEC}/schema`,
  },
  'tool.output-schema': {
    severity: 'error',
    title: 'structuredContent does not match the tool’s outputSchema',
    spec: `${SPEC}/server/tools#output-schema`,
  },
  'tool.error-as-jsonrpc': {
    severity: 'warning',
    title: 'a tool execution error answered as a JSON-RPC error',
    spec: `${SPEC}/server/tools#error-handling`,
  },
  'tool.is-error-empty': {
    severity: 'warning',
    title: 'isError result without any content explaining it',
    spec: `${SPEC}/server/tools#error-handling`,
  },
  'content.unknown-type': {
    severity: 'error',
    title: 'content block of an unknown or invalid type',
    spec: `${SPEC}/server/tools#tool-result`,
  },
  'progress.unknown-token': {
    severity: 'error',
    title: 'progress for a token the client never sent',
    spec: `${SPEC}/basic/utilities/progress`,
  },
  'id.reused': {
    severity: 'error',
    title: 'request id used before in the same session',
    spec: `${SPEC}/basic#requests`,
  },
  'notification.answered': {
    severity: 'error',
    title: 'a reply to no request (a notification must not be answered)',
    spec: `${SPEC}/basic#notifications`,
  },
  'tool.name-invalid': {
    severity: 'warning',
    title: 'tool name outside the allowed characters or length',
    spec: `${SPEC}/server/tools#tool-names`,
  },
  'tool.name-duplicate': {
    severity: 'error',
    title: 'two tools with the same name',
    spec: `${SPEC}/server/tools#tool-names`,
  },
  'tool.input-schema': {
    severity: 'error',
    title: 'inputSchema is not an object schema',
    spec: `${SPEC}/server/tools#tool`,
  },
  'pagination.cursor-loop': {
    severity: 'error',
    title: 'a paginated list whose cursor loops',
    spec: `${SPEC}/server/utilities/pagination`,
  },
  'security.hidden-text': {
    severity: 'error',
    title: 'hidden or invisible characters',
    spec: `${SPEC}/server/tools#security-considerations`,
  },
  'security.zero-width': {
    severity: 'warning',
    title: 'zero-width or invisible formatting characters',
    spec: `${SPEC}/server/tools#security-considerations`,
  },
  'security.homoglyph': {
    severity: 'error',
    title: 'tool name that looks like another tool’s',
    spec: `${SPEC}/server/tools#security-considerations`,
  },
  'security.instructions': {
    severity: 'warning',
    title: 'instruction-like text aimed at the model',
    spec: `${SPEC}/server/tools#security-considerations`,
  },
  'security.rug-pull': {
    severity: 'warning',
    title: 'the tool list changed (within a session, or since an earlier session of the same server)',
    spec: `${SPEC}/server/tools#list-changed-notification`,
  },
  'security.secret-echo': {
    severity: 'error',
    title: 'a result holds a secret seen elsewhere in the traffic',
    spec: `${SPEC}/server/tools#security-considerations`,
  },
} as const satisfies Record<string, { severity: Severity; title: string; spec: string }>;

export type RuleId = keyof typeof RULES;

/** A finding of a rule, with the rule's severity and spec link. */
export function finding(id: RuleId, path: string, message: string, detail?: string): Finding {
  const rule = RULES[id];
  return { id, severity: rule.severity, path, message, spec: rule.spec, ...(detail ? { detail } : {}) };
}

export function countProblems(
  problems: readonly Finding[] | undefined,
  into: ProblemCounts = { error: 0, warning: 0, info: 0 },
): ProblemCounts {
  for (const p of problems ?? []) into[p.severity]++;
  return into;
}

/**
 * What an exchange's ⚠ says when pointed at: each finding by its rule id and message, worst first (at most `max`,
 * then how many more), e.g. "1 warning — security.rug-pull: the tool list changed within this session…".
 */
export function problemsSummary(problems: readonly Finding[], max = 3): string {
  const counts = countProblems(problems);
  const head = SEVERITIES.filter((s) => counts[s] > 0)
    .map((s) => `${counts[s]} ${s === 'info' ? 'note' : s}${counts[s] === 1 ? '' : 's'}`)
    .join(', ');
  const sorted = [...problems].sort((a, b) => SEVERITIES.indexOf(a.severity) - SEVERITIES.indexOf(b.severity));
  const lines = sorted.slice(0, max).map((p) => `${p.id}: ${p.message}`);
  if (sorted.length > max) lines.push(`and ${sorted.length - max} more (the detail’s Problems tab)`);
  return `${head} — ${lines.join('\n')}`;
}

/** The worst severity among the findings, or undefined when there are none. */
export function worstSeverity(problems: readonly Finding[] | undefined): Severity | undefined {
  if (!problems?.length) return undefined;
  return SEVERITIES.find((s) => problems.some((p) => p.severity === s));
}

/** `has:problem` — exchanges with at least one finding (the REST API's and the agents' query; the renderer's filter language has it as a `has:` value). */
export const HAS_PROBLEM_TOKEN = 'has:problem';

/** The text without its `has:problem` tokens, and whether there was one. */
export function takeHasProblem(text: string): { hasProblem: boolean; rest: string } {
  const re = /(^|\s)has:problems?(?=\s|$)/gi;
  const hasProblem = re.test(text);
  return { hasProblem, rest: hasProblem ? text.replace(re, ' ').trim() : text };
}

/** Does the exchange have at least one finding? */
export const hasProblem = (event: { insight?: ExchangeInsight }): boolean => (event.insight?.problems.length ?? 0) > 0;
