import type { PausedCall } from '../../src/shared/breakpoints.js';
import type { ExchangeEvent } from '../../src/shared/traffic.js';
import type { Breakpoints } from '../../src/main/engine/pipeline/breakpoints/breakpoints.js';
import { startProxy, type ProxyOptions, type RunningProxy } from '../../src/main/engine/proxy.js';
import { connectClient, type ConnectedClient } from '../fixtures/client.js';
import { startSdkServer, type SdkServerHandle, type SdkServerOptions } from '../fixtures/sdk-server.js';
import { keeper } from './keep.js';

/**
 * The real peers of a breakpoint test: SDK servers, proxies and SDK clients, each kept to be closed (in reverse order)
 * by `closeAll` after the test.
 */
export function breakpointPeers(): ReturnType<typeof keeper> & {
  upstream(options?: SdkServerOptions): Promise<SdkServerHandle>;
  proxy(options: ProxyOptions): Promise<RunningProxy>;
  client(url: string, options?: Parameters<typeof connectClient>[1]): Promise<ConnectedClient>;
} {
  const { keep, closeAll } = keeper();
  return {
    keep,
    closeAll,
    upstream: (options = {}) => startSdkServer(options).then(keep),
    proxy: (options) => startProxy(options).then(keep),
    client: (url, options) => connectClient(url, options).then(keep),
  };
}

async function pausedWhen(bp: Breakpoints, count: number, done: (paused: number) => boolean): Promise<PausedCall[]> {
  const deadline = Date.now() + 5_000;
  while (!done(bp.paused().length)) {
    if (Date.now() > deadline) throw new Error(`expected ${count} paused call(s), have ${bp.paused().length}`);
    await new Promise((r) => setTimeout(r, 10));
  }
  return bp.paused();
}

/** Waits until at least `count` calls are paused in the registry, and returns them. */
export const pausedIn = (bp: Breakpoints, count = 1): Promise<PausedCall[]> =>
  pausedWhen(bp, count, (paused) => paused >= count);

/** Waits until exactly `count` calls are paused (0: until none is), and returns them. */
export const pausedExactly = (bp: Breakpoints, count = 1): Promise<PausedCall[]> =>
  pausedWhen(bp, count, (paused) => paused === count);

/** The proxy's first final exchange event of a method from now on. */
export const finalEvent = (p: RunningProxy, method: string): Promise<ExchangeEvent> =>
  new Promise((resolve) => {
    const on = (e: ExchangeEvent): void => {
      if (e.method !== method || !e.final) return;
      p.events.off('exchange', on);
      resolve(e);
    };
    p.events.on('exchange', on);
  });
