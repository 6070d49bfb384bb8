import type { RefusalKind } from '../../../../shared/cassette/entry.js';
import type { JsonRpcError, JsonRpcMessage } from '../../../../shared/jsonrpc.js';
import type { Log } from '../../log.js';
import type { Closable, ExchangeDetail, Hook, Hooks, Need, ServerMessage } from './contract.js';
import type { LiveExchange } from './exchange.js';
import type { Session } from './session.js';

const RANK: Record<Need, number> = { none: 0, observe: 1, commit: 2, hold: 3 };

/** Does the answer wait for a hook before it reaches the client? */
export const waits = (need: Need): boolean => need === 'commit' || need === 'hold';

/**
 * The hooks a mode installs, called in order. Errors of the hooks told after the fact (finish, serverMessage, refused)
 * are logged and never break the exchange; those of the hooks the answer waits for (request, replies, respond) are
 * not caught here: they reject the caller's promise.
 */
export class HookChain implements Hooks {
  private readonly onRequest: Hook[];
  private readonly replyHolders: Hook[];
  private readonly streamObservers: Hook[];
  private readonly refusalKeepers: Hook[];

  private readonly detailKeepers: Hook[];

  constructor(
    readonly hooks: readonly Hook[],
    private readonly log: Log,
  ) {
    this.detailKeepers = hooks.filter((h) => h.wantsDetail);
    this.onRequest = hooks.filter((h) => h.onRequest);
    this.replyHolders = hooks.filter((h) => h.onReplies);
    this.streamObservers = hooks.filter((h) => h.onServerMessage);
    this.refusalKeepers = hooks.filter((h) => h.onRefusal);
  }

  /** Does any hook need anything of the requests to come (else POSTs are piped unparsed)? */
  active(): boolean {
    for (const hook of this.hooks) if (hook.need() !== 'none') return true;
    return false;
  }

  /** Does any hook want to see requests before they are planned (a breakpoint is set)? */
  intercepts(): boolean {
    for (const hook of this.onRequest) if (hook.need() !== 'none') return true;
    return false;
  }

  async request(exchange: LiveExchange, session: Session | undefined, signal: Closable): Promise<void> {
    for (const hook of this.onRequest) await hook.onRequest!(exchange, session, signal);
  }

  /** Does any hook want the client's replies to the server's requests (a breakpoint, the recorder)? */
  readsReplies(): boolean {
    for (const hook of this.replyHolders) if (hook.need() !== 'none') return true;
    return false;
  }

  /** The client's replies of a POST, through the hooks that may hold them; true when one changed them. */
  async replies(messages: JsonRpcMessage[], session: Session, signal: Closable): Promise<boolean> {
    let changed = false;
    for (const hook of this.replyHolders) if (await hook.onReplies?.(messages, session, signal)) changed = true;
    return changed;
  }

  /** Asks each hook what it needs of a planned exchange; the strongest need decides how its answer travels. */
  needs(exchange: LiveExchange): void {
    const needs = this.hooks.map((h) => h.need(exchange));
    let top: Need = 'none';
    for (const need of needs) if (RANK[need] > RANK[top]) top = need;
    exchange.delivery.needs = needs;
    exchange.delivery.need = top;
  }

  async respond(
    exchange: LiveExchange,
    session: Session | undefined,
    signal: Closable,
    detail?: ExchangeDetail,
  ): Promise<void> {
    if (!waits(exchange.delivery.need)) return;
    exchange.delivery.committed = true;
    for (let i = 0; i < this.hooks.length; i++) {
      if (waits(exchange.delivery.needs[i])) await this.hooks[i].onResponse?.(exchange, session, detail, signal);
    }
  }

  /** …and the committing hooks whose answer went out without them (answered on a stream the client resumed). */
  async finish(exchange: LiveExchange, session: Session | undefined, detail?: ExchangeDetail): Promise<void> {
    exchange.settle(); // it ends here, in the state its stage left it, unless that stage ended it already
    if (exchange.delivery.need === 'none') return;
    for (let i = 0; i < this.hooks.length; i++) {
      if (
        exchange.delivery.needs[i] !== 'observe' &&
        (exchange.delivery.needs[i] !== 'commit' || exchange.delivery.committed)
      )
        continue;
      try {
        await this.hooks[i].onResponse?.(exchange, session, detail, NEVER_CLOSES);
      } catch (error) {
        this.log(`${this.hooks[i].name}: ${exchange.key}: ${(error as Error).message}`, 'warn');
      }
    }
  }

  serverMessage(message: ServerMessage, session: Session): void {
    for (const hook of this.streamObservers) {
      try {
        hook.onServerMessage!(message, session);
      } catch (error) {
        this.log(`${hook.name}: ${message.method}: ${(error as Error).message}`, 'warn');
      }
    }
  }

  refused(kind: RefusalKind, refusal: { status: number; error: JsonRpcError }): void {
    for (const hook of this.refusalKeepers) {
      try {
        hook.onRefusal!(kind, refusal);
      } catch (error) {
        this.log(`${hook.name}: ${kind}: ${(error as Error).message}`, 'warn');
      }
    }
  }

  /** Does a hook keep the detail of upstream answers now (a recorder; a recording switch while it records)? */
  wantsDetail(): boolean {
    for (const hook of this.detailKeepers) if (hook.wantsDetail!()) return true;
    return false;
  }

  observesStreams(): boolean {
    return this.streamObservers.some((h) => h.watchesStreams?.() ?? true);
  }
}

const NEVER_CLOSES: Closable = { once: () => undefined, off: () => undefined };
