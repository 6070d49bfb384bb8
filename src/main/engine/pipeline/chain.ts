import type { RefusalKind } from '../../../shared/cassette/entry.js';
import type { JsonRpcError, JsonRpcNotification } from '../../../shared/jsonrpc.js';
import type { Log } from '../log.js';
import type { CassetteOffer, Closable, ExchangeDetail, Hook, Hooks, Need, Plan, Refused, RuleOffer } from './contract.js';
import { waits, type LiveExchange, type RequestHeaders } from './exchange.js';
import { refusalFor } from './replay-protocol.js';
import type { Session } from './session.js';

const RANK: Record<Need, number> = { none: 0, observe: 1, commit: 2, hold: 3 };

/** The hooks a mode installs, called in order. Errors of one hook are logged and never break the exchange. */
export class HookChain implements Hooks {
  private readonly withActive: Hook[];
  private readonly onRequest: Hook[];
  private readonly withNeed: Hook[];
  private readonly streamObservers: Hook[];
  private readonly pushers: Hook[];
  private readonly preparers: Hook[];

  constructor(
    readonly hooks: readonly Hook[],
    private readonly log: Log,
  ) {
    this.withActive = hooks.filter((h) => h.wantsRequests);
    this.onRequest = hooks.filter((h) => h.onRequest);
    this.withNeed = hooks.filter((h) => h.need);
    this.streamObservers = hooks.filter((h) => h.onServerMessage);
    this.pushers = hooks.filter((h) => h.pushes);
    this.preparers = hooks.filter((h) => h.prepare);
  }

  prepare(exchanges: readonly LiveExchange[]): Promise<unknown> | undefined {
    let waits: Array<Promise<void>> | undefined;
    for (const hook of this.preparers) {
      if (exchanges.length === 0) {
        const wait = hook.prepare!(undefined);
        if (wait) (waits ??= []).push(wait);
      }
      for (const exchange of exchanges) {
        const wait = hook.prepare!(exchange);
        if (wait) (waits ??= []).push(wait);
      }
    }
    return waits && Promise.all(waits);
  }

  /** Any hook wants anything of requests now (a hook without `active` always does). */
  active(): boolean {
    if (this.withActive.length < this.hooks.length) return true;
    for (const hook of this.withActive) if (hook.wantsRequests!()) return true;
    return false;
  }

  /** Does any hook want to see requests before they are planned (a breakpoint is set)? */
  intercepts(): boolean {
    for (const hook of this.onRequest) if (!hook.wantsRequests || hook.wantsRequests()) return true;
    return false;
  }

  async request(exchange: LiveExchange, session: Session | undefined, signal: Closable): Promise<void> {
    for (const hook of this.onRequest) await hook.onRequest!(exchange, session, signal);
  }

  offers(exchange: LiveExchange, session: Session): { rule?: RuleOffer; cassette?: CassetteOffer } {
    let rule: RuleOffer | undefined;
    let cassette: CassetteOffer | undefined;
    for (const hook of this.hooks) {
      rule ??= hook.offerRule?.(exchange);
      cassette ??= hook.offerCassette?.(exchange, session);
    }
    return { rule, cassette };
  }

  /** Tells the hooks the plan, then asks each what it needs of the exchange. */
  planned(exchange: LiveExchange, plan: Plan, session: Session): void {
    for (const hook of this.hooks) hook.onPlanned?.(exchange, plan, session);
    if (this.withNeed.length === 0) return;
    const needs = this.hooks.map((h) => h.need?.(exchange) ?? 'none');
    let top: Need = 'none';
    for (const need of needs) if (RANK[need] > RANK[top]) top = need;
    exchange.needs = needs;
    exchange.need = top;
  }

  async respond(exchange: LiveExchange, session: Session | undefined, signal: Closable, detail?: ExchangeDetail): Promise<void> {
    if (!waits(exchange.need)) return;
    exchange.committed = true;
    for (let i = 0; i < this.hooks.length; i++) {
      if (waits(exchange.needs[i])) await this.hooks[i].onResponse?.(exchange, session, detail, signal);
    }
  }

  /** …and the committing hooks whose answer went out without them (answered on a stream the client resumed). */
  async finish(exchange: LiveExchange, session: Session | undefined, detail?: ExchangeDetail): Promise<void> {
    if (exchange.need === 'none') return;
    for (let i = 0; i < this.hooks.length; i++) {
      if (exchange.needs[i] !== 'observe' && (exchange.needs[i] !== 'commit' || exchange.committed)) continue;
      try {
        await this.hooks[i].onResponse?.(exchange, session, detail, NEVER_CLOSES);
      } catch (error) {
        this.log(`${this.hooks[i].name}: ${exchange.key}: ${(error as Error).message}`, 'warn');
      }
    }
  }

  serverMessage(message: JsonRpcNotification, session: Session): void {
    for (const hook of this.streamObservers) {
      try {
        hook.onServerMessage!(message, session);
      } catch (error) {
        this.log(`${hook.name}: ${message.method}: ${(error as Error).message}`, 'warn');
      }
    }
  }

  refusal(kind: RefusalKind, detail?: string): Refused {
    for (const hook of this.hooks) {
      const offered = hook.offerRefusal?.(kind, detail);
      if (offered) return offered;
    }
    return refusalFor(kind, undefined, undefined, detail);
  }

  /** how the cassette's answers usually travelled (for entries that kept no framing) */
  usualFraming(): 'json' | 'sse' | undefined {
    for (const hook of this.hooks) {
      const framing = hook.usualFraming?.();
      if (framing) return framing;
    }
    return undefined;
  }

  refusesHead(headers: RequestHeaders): { kind: RefusalKind; detail?: string } | undefined {
    for (const hook of this.hooks) {
      const refused = hook.refusesHead?.(headers);
      if (refused) return refused;
    }
    return undefined;
  }

  refused(kind: RefusalKind, refusal: { status: number; error: JsonRpcError }): void {
    for (const hook of this.hooks) {
      try {
        hook.onRefusal?.(kind, refusal);
      } catch (error) {
        this.log(`${hook.name}: ${kind}: ${(error as Error).message}`, 'warn');
      }
    }
  }

  pushes(): boolean {
    return this.pushers.some((h) => h.pushes!());
  }

  wantsDetail(): boolean {
    return this.hooks.some((h) => h.wantsDetail);
  }

  observesStreams(): boolean {
    return this.streamObservers.length > 0;
  }

  async close(): Promise<void> {
    for (const hook of this.hooks) await hook.close?.();
  }
}

const NEVER_CLOSES: Closable = { once: () => undefined, off: () => undefined };
