/**
 * The insight of a stream of exchanges (issue 26): protocol schemas, session rules, security warnings and the
 * tokens each exchange costs. One analyzer per traffic (the app's timeline, one cassette for `lint`): it remembers
 * what it needs across exchanges (each session's tool list, ids and cursors; each server's tool list; the secrets
 * seen), bounded. Never changes an exchange; fed in arrival order.
 */
import type { ExchangeEvent } from '../traffic.js';
import { exchangeTokens, type TokenCounter } from './cost.js';
import type { ExchangeInsight, Finding } from './findings.js';
import { checkAnswerSchema, checkRequestSchema, checkStreamSchemas, eraOfExchange } from './protocol.js';
import { checkRules, contentRules, newSession, type SchemaValidator, type SessionState } from './rules.js';
import { checkSecurity, newSecurityState, scanAnswer, type SecurityState } from './security.js';

export interface AnalyzerDeps {
  validate: SchemaValidator;
  /** absent: no token counts */
  countTokens?: TokenCounter;
}

const MAX_SESSIONS = 2_000;
/** findings that depend on a message alone, remembered by its text (the same lists and results come back) */
const MEMO_ENTRIES = 2_000;
const MEMO_MAX_TEXT = 16 * 1024;

/** A bounded map of what was found for a text, oldest dropped first. */
class Memo {
  private readonly found = new Map<string, Finding[]>();
  get(key: string | undefined, compute: () => Finding[]): Finding[] {
    if (key === undefined) return compute();
    const known = this.found.get(key);
    if (known) return known;
    const made = compute();
    if (this.found.size >= MEMO_ENTRIES) this.found.delete(this.found.keys().next().value as string);
    this.found.set(key, made);
    return made;
  }
}

/** The text that a message's own findings depend on (with what else they depend on), or undefined when too long. */
function keyOf(parts: string, value: unknown): string | undefined {
  const text = JSON.stringify(value) ?? '';
  return text.length <= MEMO_MAX_TEXT ? `${parts}\u0000${text}` : undefined;
}

/** Schema findings under a path a specific rule already explained say the same thing twice: they are dropped. */
function withoutRepeats(schema: Finding[], specific: Finding[]): Finding[] {
  if (specific.length === 0) return schema;
  return schema.filter(
    (s) =>
      !specific.some((f) => s.path === f.path || s.path.startsWith(`${f.path}.`) || s.path.startsWith(`${f.path}[`)),
  );
}

export class InsightAnalyzer {
  private readonly sessions = new Map<string, SessionState>();
  private readonly security: SecurityState = newSecurityState();
  private readonly requests = new Memo();
  private readonly answers = new Memo();
  private readonly answerTexts = new Memo();

  constructor(private readonly deps: AnalyzerDeps) {}

  /** `server`: which server the exchange talked to (a proxy, a cassette): tool lists and names are compared per server. */
  analyze(event: ExchangeEvent, server: string): ExchangeInsight {
    const session = this.session(`${server}\u0000${event.sessionId ?? ''}`);
    const era = eraOfExchange(event);
    const { method, params } = event.request;
    const response = event.response as { result?: unknown; error?: unknown } | undefined;
    const answerKey =
      response && keyOf(`${era} ${method} ${params?.task !== undefined}`, response.error ?? response.result);
    const schema = [
      ...this.requests.get(keyOf(`${era} ${method}`, params), () => checkRequestSchema(event)),
      ...this.answers.get(answerKey, () => checkAnswerSchema(event)),
      ...checkStreamSchemas(event),
    ];
    const specific = [
      ...checkRules(event, session, this.deps.validate),
      ...this.answerTexts.get(answerKey, () => [...contentRules(event), ...scanAnswer(event)]),
      ...checkSecurity(event, server, this.security),
    ];
    const problems = [...withoutRepeats(schema, specific), ...specific];
    const tokens = this.deps.countTokens ? exchangeTokens(event, this.deps.countTokens) : undefined;
    return tokens === undefined ? { problems } : { problems, tokens };
  }

  private session(key: string): SessionState {
    let state = this.sessions.get(key);
    if (state) {
      this.sessions.delete(key); // most recently used last
    } else {
      state = newSession();
      if (this.sessions.size >= MAX_SESSIONS) this.sessions.delete(this.sessions.keys().next().value as string);
    }
    this.sessions.set(key, state);
    return state;
  }
}
