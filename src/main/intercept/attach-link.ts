import { randomBytes } from 'node:crypto';
import type { AttachControl } from '../../shared/attach.js';
import type { TrafficEvent } from '../../shared/api.js';
import type { RewindClient } from '../../shared/api-client.js';
import type { ExchangeEvent } from '../../shared/traffic.js';
import type { Log } from '../engine/log.js';
import type { RunningProxy } from '../engine/proxy.js';
import type { RecordingSwitch } from '../engine/recording-switch.js';
import { engineRules } from '../../shared/rules/schema.js';
import { toolViews } from '../api/proxies/proxy-rules.js';
import { slimEvent } from '../api/traffic/traffic-slim.js';
import { liveOwner } from '../web/data-owner.js';

/**
 * The attached side of `--stdio --attach`: an mcp-rewind an agent started (a wrapped server) finds the running app
 * through the data folder (owner.json, the owner-only ui-token), says hello, streams its exchanges to the app's
 * timeline and takes the app's rules, breakpoints and recording choice. With no app it is a plain pass-through
 * (recording where its args say): nothing listens to its exchanges, so the proxy pipes bytes. It looks for the app
 * again every second, so an app started later sees it; an app that goes away leaves it as it was started.
 */

export interface AttachOptions {
  dataDir: string;
  name: string;
  /** what it runs in front of, for display */
  upstream: string;
  /** the folder its args record to */
  record?: string;
  log: Log;
  /** how often to look for the app (ms) */
  lookEveryMs?: number;
}

/** a batch of exchanges stays well under the UI API's 1 MiB frame limit */
const BATCH_BYTES = 512 * 1024;
/** exchanges wait this long to go to the app together: one API call per batch, not per exchange, off the calls' path */
const BATCH_MS = 50;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms).unref());

/** An exchange small enough for one API frame: large bodies cut as the timeline cuts them, then the stream if need be. */
export function wireEvent(event: ExchangeEvent): { event: ExchangeEvent; bytes: number } {
  const slim = slimEvent({ ...event, proxyId: '' }).event;
  const { proxyId: _id, ...rest } = slim as TrafficEvent;
  let bytes = JSON.stringify(rest).length;
  if (bytes <= BATCH_BYTES) return { event: rest, bytes };
  const cut = {
    ...rest,
    stream: [],
    original: undefined,
    truncated: { ...rest.truncated, stream: JSON.stringify(event.stream).length },
  };
  bytes = JSON.stringify(cut).length;
  return { event: cut, bytes };
}

/** What the link uses of the proxy it runs in: the HTTP one (engine/proxy.ts) or the stdio one (engine/stdio-proxy.ts). */
export type AttachedProxy = Pick<RunningProxy, 'events' | 'breakpoints' | 'rules' | 'memory'> & {
  readonly endpoint: { notifyAll(method: string): number };
};

export class AttachLink {
  readonly attachId = randomBytes(12).toString('base64url');
  private closed = false;
  private client?: RewindClient;
  private clientInfo?: { name: string; version?: string };
  private rulesText = 'null';
  /** the app (pid:since) that removed this server: not joined again until it restarts */
  private detachedFrom?: string;
  private firstTry!: () => void;
  private readonly tried = new Promise<void>((resolve) => (this.firstTry = resolve));
  private running?: Promise<void>;

  constructor(
    private readonly proxy: AttachedProxy,
    private readonly recording: RecordingSwitch,
    private readonly options: AttachOptions,
  ) {}

  /** Joins the app if one runs (waits for that, at most a few seconds), then keeps looking in the background. */
  async start(): Promise<void> {
    if (this.options.record) await this.recording.to(this.options.record);
    this.running = this.run();
    await Promise.race([this.tried, sleep(4_000)]);
  }

  /** every message of the client: its initialize names it */
  seeClientMessage(message: unknown): void {
    const m = message as { method?: string; params?: { clientInfo?: { name?: unknown; version?: unknown } } };
    const info = m.method === 'initialize' ? m.params?.clientInfo : undefined;
    if (!info || typeof info.name !== 'string') return;
    this.clientInfo = {
      name: info.name.slice(0, 200),
      ...(typeof info.version === 'string' ? { version: info.version.slice(0, 200) } : {}),
    };
    void this.client?.call('attach.update', { attachId: this.attachId, client: this.clientInfo }).catch(() => {});
  }

  async close(): Promise<void> {
    this.closed = true;
    const client = this.client;
    if (client) await client.call('attach.close', { attachId: this.attachId }).catch(() => {});
    client?.close();
    await this.running;
  }

  private async run(): Promise<void> {
    while (!this.closed) {
      const owner = await liveOwner(this.options.dataDir).catch(() => undefined);
      const key = owner && `${owner.pid}:${owner.since}`;
      if (owner?.origin && key !== this.detachedFrom) {
        const { connectRunningUi } = await import('../web/ui-link.js'); // the app's API client: once there is an app
        const client = await connectRunningUi(this.options.dataDir, { queueTimeoutMs: 2_000 }).catch((error: Error) => {
          this.options.log(`attach: ${error.message}`, 'info');
          return undefined;
        });
        if (client && !this.closed) {
          this.client = client;
          const detached = await this.session(client).catch((error: Error) =>
            this.options.log(`attach: ${error.message}`, 'info'),
          );
          if (detached) this.detachedFrom = key;
          this.client = undefined;
          client.close();
          await this.reset();
        } else client?.close();
      }
      this.firstTry();
      if (!this.closed) await sleep(this.options.lookEveryMs ?? 1_000);
    }
  }

  /** One connection to the app, until it is lost or the app removes this server (answers true then). */
  private async session(client: RewindClient): Promise<boolean> {
    const { attachId } = this;
    const report = (): void => void this.update(client).catch(() => {});
    // listening before the hello: the app shows this process attached as soon as it says hello, so every exchange
    // from then on must reach it (those of the hello's round trip and of applying its answer are held, then sent)
    const queue = this.exchangeQueue(client, () => report());
    this.proxy.events.on('exchange', queue.push);
    let offPaused = (): void => {};
    try {
      const opened = await client.call('attach.open', {
        attachId,
        name: this.options.name,
        pid: process.pid,
        upstream: this.options.upstream,
        ...(this.clientInfo ? { client: this.clientInfo } : {}),
        ...(this.options.record ? { record: this.options.record } : {}),
      });
      queue.opened();
      this.options.log(`attach: the app at ${this.options.dataDir} sees this server as "${this.options.name}"`, 'info');
      let detached = await this.apply(client, opened.control);
      this.firstTry();
      offPaused = this.proxy.breakpoints.onChange(
        () => void client.call('attach.update', { attachId, paused: this.proxy.breakpoints.paused() }).catch(() => {}),
      );
      report();
      while (!this.closed && !detached && client.status() === 'open') {
        const controls = await client.call('attach.poll', { attachId });
        for (const control of controls) detached = (await this.apply(client, control)) || detached;
      }
      return detached;
    } finally {
      this.proxy.events.off('exchange', queue.push);
      offPaused();
    }
  }

  /**
   * Batches exchanges into API calls, in order, each batch within BATCH_BYTES; none is sent before `opened` (the app
   * knows this process only after attach.open).
   */
  private exchangeQueue(
    client: RewindClient,
    toolsSeen: () => void,
  ): { push: (event: ExchangeEvent) => void; opened: () => void } {
    let batch: ExchangeEvent[] = [];
    let size = 0;
    let opened!: () => void;
    let sending: Promise<unknown> = new Promise<void>((resolve) => (opened = resolve));
    const send = (): void => {
      if (batch.length === 0) return;
      const events = batch;
      batch = [];
      size = 0;
      sending = sending.then(() =>
        client.call('attach.exchanges', { attachId: this.attachId, events }).catch(() => {}),
      );
    };
    const push = (event: ExchangeEvent): void => {
      const wire = wireEvent(event);
      if (size + wire.bytes > BATCH_BYTES || batch.length >= 500) send();
      if (batch.length === 0) setTimeout(send, BATCH_MS).unref();
      batch.push(wire.event);
      size += wire.bytes;
      if (event.method === 'tools/list') toolsSeen();
    };
    return { push, opened };
  }

  private update(client: RewindClient): Promise<unknown> {
    const rules = this.proxy.rules;
    return client.call('attach.update', {
      attachId: this.attachId,
      recording: this.recording.dir ?? null,
      paused: this.proxy.breakpoints.paused(),
      ...(rules ? { tools: toolViews(rules, this.proxy.memory.upstreamTools) } : {}),
    });
  }

  /** what the app says; answers true when it removed this server */
  private async apply(client: RewindClient, control: AttachControl): Promise<boolean> {
    const { breakpoints } = this.proxy;
    if (control.rules !== undefined) this.setRules(control.rules);
    if (control.breakpoints) breakpoints.set(control.breakpoints);
    if (control.resume) this.settle(() => breakpoints.resume(control.resume!.id, control.resume));
    if (control.fail) this.settle(() => breakpoints.fail(control.fail!.id, control.fail!.message));
    if ('record' in control) {
      await this.recording.to(control.record === undefined ? this.options.record : (control.record ?? undefined));
      await this.update(client).catch(() => {});
    }
    if (control.rules !== undefined) await this.update(client).catch(() => {});
    return control.detach === true;
  }

  private settle(action: () => void): void {
    try {
      action();
    } catch (error) {
      this.options.log(`attach: ${(error as Error).message}`, 'info');
    }
  }

  private setRules(rules: AttachControl['rules']): void {
    const text = JSON.stringify(rules ?? null);
    if (text === this.rulesText || !this.proxy.rules) return;
    this.rulesText = text;
    this.proxy.rules.replace(engineRules(rules ?? undefined).overlay);
    this.proxy.endpoint.notifyAll('notifications/tools/list_changed');
  }

  /** the app is gone: back to what the args say */
  private async reset(): Promise<void> {
    this.setRules(null);
    this.proxy.breakpoints.set([]);
    this.proxy.breakpoints.releaseAll();
    await this.recording.to(this.options.record);
  }
}
