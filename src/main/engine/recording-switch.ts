import { resolve } from 'node:path';
import type { JsonRpcError } from '../../shared/jsonrpc.js';
import type { RefusalKind } from '../../shared/cassette/entry.js';
import type { CassetteStore } from './cassette/store.js';
import type { Log } from './log.js';
import type { Closable, ExchangeDetail, Hook, Need, ServerMessage } from './pipeline/core/contract.js';
import type { LiveExchange } from './pipeline/core/exchange.js';
import type { Recorder } from './pipeline/record/recorder.js';
import type { Session } from './pipeline/core/session.js';

/**
 * A recorder that can be switched on, moved to another folder, or off while the proxy runs: an attached proxy
 * (`--attach`) records where its args say, or where the app watching it says, and the agent's session goes on.
 * Off, it wants nothing (the proxy pipes bytes); on, it is the engine's own Recorder.
 */
export class RecordingSwitch implements Hook {
  readonly name = 'recorder';
  private recorder?: Recorder;
  private store?: CassetteStore;
  private switching: Promise<void> = Promise.resolve();

  constructor(
    private readonly log: Log,
    private readonly durable = true,
  ) {}

  /** the folder recorded to now */
  get dir(): string | undefined {
    return this.store?.dir;
  }

  /** on, the cassette gets its debug files (.req.json, .res.json, .res-head.json), as the recorder's */
  wantsDetail(): boolean {
    return this.recorder !== undefined;
  }

  need(exchange: LiveExchange): Need {
    return this.recorder?.need(exchange) ?? 'none';
  }

  onResponse(
    exchange: LiveExchange,
    session: Session | undefined,
    detail: ExchangeDetail | undefined,
    _signal: Closable,
  ): Promise<void> | undefined {
    return this.recorder?.onResponse(exchange, session, detail);
  }

  /** off, it reads no server stream (the stdio proxy then passes the server's lines unread) */
  watchesStreams(): boolean {
    return this.recorder !== undefined;
  }

  onServerMessage(message: ServerMessage, session: Session): void {
    this.recorder?.onServerMessage(message, session);
  }

  onRefusal(kind: RefusalKind, refusal: { status: number; error: JsonRpcError }): void {
    this.recorder?.onRefusal(kind, refusal);
  }

  /** Records to `dir` from the next exchange on (undefined: stops); what was being written is finished first. */
  to(dir: string | undefined): Promise<void> {
    this.switching = this.switching.then(async () => {
      if (dir !== undefined && this.store?.dir === resolve(dir)) return;
      const old = { recorder: this.recorder, store: this.store };
      this.recorder = undefined;
      this.store = undefined;
      await old.recorder?.flush();
      old.store?.close();
      if (dir === undefined) return;
      // imported at the first switch on: an attached proxy that never records loads no cassette code
      const [{ CassetteStore }, { Recorder }, { buildResultHasher }] = await Promise.all([
        import('./cassette/store.js'),
        import('./pipeline/record/recorder.js'),
        import('./cassette/hash.js'),
      ]);
      const store = await CassetteStore.start(resolve(dir), { log: this.log, durable: this.durable, watch: false });
      await store.ready;
      this.store = store;
      this.recorder = new Recorder(store, buildResultHasher({}), [], this.log);
      this.log(`recording to ${store.dir}`, 'info');
    });
    return this.switching;
  }

  async flush(): Promise<void> {
    await this.switching;
    await this.recorder?.flush();
  }

  async close(): Promise<void> {
    await this.to(undefined);
  }
}
