/**
 * The insight of a stream of exchanges (issue 26): protocol schemas, session rules, security warnings and the
 * tokens each exchange costs. One analyzer per traffic (the app's timeline, one cassette for `lint`): it remembers
 * what it needs across exchanges (each session's tool list, ids and cursors; each server's tool list; the secrets
 * seen), bounded. Never changes an exchange; fed in arrival order.
 */
import type { ExchangeEvent } from '../traffic.js';
import { exchangeTokens, type TokenCounter } from './cost.js';
import type { ExchangeInsight, Finding } from './findings.js';
import { checkSchemas } from './protocol.js';
import { checkRules, newSession, type SchemaValidator, type SessionState } from './rules.js';
import { checkSecurity, newSecurityState, type SecurityState } from './security.js';

export interface AnalyzerDeps {
  validate: SchemaValidator;
  /** absent: no token counts */
  countTokens?: TokenCounter;
}

const MAX_SESSIONS = 2_000;

/** Schema findings under a path a specific rule already explained say the same thing twice: they are dropped. */
function withoutRepeats(schema: Finding[], specific: Finding[]): Finding[] {
  if (specific.length === 0) return schema;
  return schema.filter((s) => !specific.some((f) => s.path === f.path || s.path.startsWith(`${f.path}.`) || s.path.startsWith(`${f.path}[`)));
}

export class InsightAnalyzer {
  private readonly sessions = new Map<string, SessionState>();
  private readonly security: SecurityState = newSecurityState();

  constructor(private readonly deps: AnalyzerDeps) {}

  /** `server`: which server the exchange talked to (a proxy, a cassette): tool lists and names are compared per server. */
  analyze(event: ExchangeEvent, server: string): ExchangeInsight {
    const session = this.session(`${server}\u0000${event.sessionId ?? ''}`);
    const specific = [...checkRules(event, session, this.deps.validate), ...checkSecurity(event, server, this.security)];
    const problems = [...withoutRepeats(checkSchemas(event), specific), ...specific];
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
