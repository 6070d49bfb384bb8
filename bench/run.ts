/**
 * mcp-rewind benchmark: replay throughput vs a bare node:http ceiling, and proxy-only overhead vs direct access.
 *   npm run bench                      (~3 min)      BENCH_QUICK=1 npm run bench   (~20 s smoke run)
 *   BENCH_PROFILE=1 …                  also writes --cpu-prof profiles of the proxies to bench/results/profiles
 *
 * Process layout: the load generator runs here, every server (ceiling, upstreams, proxies) in a child process of its
 * own. Child processes rather than worker_threads: each server gets its own event loop AND its own GC heap, the OS
 * schedules them on the 2 cores like a real deployment, they are profiled with plain `--cpu-prof`, and killing them
 * is trivial. Through a proxy, three busy processes (loader, proxy, upstream) share the 2 cores, so the proxy-only
 * throughput ratio includes CPU contention a real client on another machine would not cause.
 *
 * Noise: all servers stay up for the whole run, and the measurements are interleaved — every round measures every
 * server once, the servers compared with each other back to back (ABC, then CBA) — so slow phases of a noisy machine
 * hit all of them. Ratios are computed per round between these neighbours (paired) and their median is reported.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, type Child } from './children.js';
import {
  callRequest,
  generateCassette,
  generateMixedCassette,
  isErrorCall,
  MODERN_HEADERS,
  modernCallRequest,
} from './cassette-gen.js';
import { CpuMeter } from './cpu.js';
import { engineKind, engineLabel } from './engine.js';
import { LoadClient, type Payload } from './load.js';
import { cpuPerRequest, median, save, summary, type LatencyRow, type TargetRow, type ThroughputRow } from './report.js';

const QUICK = process.env.BENCH_QUICK === '1';
const CONCURRENCY = 32;
const CASSETTE_SIZE = 10_000;
const cfg = QUICK
  ? { rounds: 3, loadMs: 400, warmMs: 300, latMs: 200, latRounds: 3 }
  : { rounds: 10, loadMs: 1200, warmMs: 1500, latMs: 600, latRounds: 8 };
const profileDir =
  process.env.BENCH_PROFILE === '1' ? new URL('./results/profiles/', import.meta.url).pathname : undefined;

const bodiesFor = (count: number): Buffer[] =>
  Array.from({ length: count }, (_, i) => Buffer.from(JSON.stringify(callRequest(i, i + 1))));

/** The mixed cassette's traffic: each call by a 2025 client and by a 2026-07-28 client, in turn; every tenth an error. */
const mixedPayloads = (calls: number): Payload[] =>
  Array.from({ length: calls * 2 }, (_, n) => {
    const i = n >> 1;
    const expect = isErrorCall(i) ? ('error' as const) : ('result' as const);
    return n % 2 === 0
      ? { body: Buffer.from(JSON.stringify(callRequest(i, n + 1))), expect }
      : { body: Buffer.from(JSON.stringify(modernCallRequest(i, n + 1))), headers: MODERN_HEADERS, expect };
  });

interface Target {
  name: string;
  client: LoadClient;
  bodies: Array<Buffer | Payload>;
  meter: CpuMeter;
  row: ThroughputRow;
  lat: LatencyRow;
}

const log = (line: string): void => void process.stderr.write(`${line}\n`);

async function main(): Promise<void> {
  const started = performance.now();
  const tmp = await mkdtemp(join(tmpdir(), 'mcp-rewind-bench-'));
  const children: Child[] = [];
  const targets: Target[] = [];
  try {
    process.env.BENCH_ENGINE = engineKind(); // the children inherit the choice
    log(`bench: ${engineLabel()}`);
    log(
      `bench: ${QUICK ? 'QUICK' : 'full'} run, ${cfg.rounds} rounds × ${cfg.loadMs} ms at concurrency ${CONCURRENCY}; cassettes in ${tmp}`,
    );
    await generateCassette(join(tmp, 'one'), 1);
    await generateCassette(join(tmp, 'tenk'), CASSETTE_SIZE);
    await generateMixedCassette(join(tmp, 'mixed'), CASSETTE_SIZE / 2);
    log(`bench: cassettes written (${((performance.now() - started) / 1000).toFixed(1)} s)`);

    const start = async (name: string, args: string[] = [], profile = false): Promise<Child> => {
      const child = await startServer(name, args, profile ? profileDir : undefined);
      children.push(child);
      return child;
    };
    const [canned, sdk, replay1, replay10k, replayMixed] = await Promise.all([
      start('canned'),
      start('sdk'),
      start('proxy', ['replay', join(tmp, 'one')], true),
      start('proxy', ['replay', join(tmp, 'tenk')], true),
      start('proxy', ['replay', join(tmp, 'mixed')], true),
    ]);
    const [proxyCanned, proxySdk, bareProxy, watchedCanned, checkedCanned, watchedSdk, checkedSdk] = await Promise.all([
      start('proxy', ['proxy-only', canned.url], true),
      start('proxy', ['proxy-only', sdk.url], true),
      start('bare-proxy', [canned.url]),
      // the app's proxy-only: exchanges observed, without and with the insight checks (issue 26)
      start('observed', [canned.url]),
      start('observed', [canned.url, '--insight'], true),
      start('observed', [sdk.url]),
      start('observed', [sdk.url, '--insight'], true),
    ]);

    const one = bodiesFor(1);
    const many = bodiesFor(64);
    /** `processes`: the server-side processes whose CPU time this target costs (the loader's is always counted) */
    const add = (
      name: string,
      url: string,
      bodies: Array<Buffer | Payload>,
      processes: Record<string, Child>,
    ): Target => {
      const meter = new CpuMeter([
        { label: 'loader', pid: process.pid },
        ...Object.entries(processes).map(([label, c]) => ({ label, pid: c.pid })),
      ]);
      const row = { name, rps: [], p50Ms: [], p99Ms: [], errors: 0, cpuMs: meter.totals, requests: 0 };
      const target = {
        name,
        client: new LoadClient(url, CONCURRENCY),
        bodies,
        meter,
        row,
        lat: { name, p50Ms: [], p99Ms: [] },
      };
      targets.push(target);
      return target;
    };
    const ceiling = add('ceiling: bare node:http, canned answer', canned.url, one, { server: canned });
    const r1 = add('replay, 1-entry cassette', replay1.url, one, { server: replay1 });
    const r10k = add(
      `replay, ${CASSETTE_SIZE}-entry cassette (rotating keys)`,
      replay10k.url,
      bodiesFor(CASSETTE_SIZE),
      { server: replay10k },
    );
    const rMixed = add(
      `replay, ${CASSETTE_SIZE}-entry cassette of both revisions, 10% errors (2025 and 2026-07-28 clients in turn)`,
      replayMixed.url,
      mixedPayloads(CASSETTE_SIZE / 2),
      { server: replayMixed },
    );
    const cannedDirect = add('minimal upstream (node:http), direct', canned.url, many, { upstream: canned });
    const cannedProxied = add('minimal upstream, through proxy-only', proxyCanned.url, many, {
      proxy: proxyCanned,
      upstream: canned,
    });
    const cannedBare = add('minimal upstream, through a bare node:http proxy (reference)', bareProxy.url, many, {
      proxy: bareProxy,
      upstream: canned,
    });
    const sdkDirect = add('SDK upstream (stateless JSON), direct', sdk.url, many, { upstream: sdk });
    const sdkProxied = add('SDK upstream, through proxy-only', proxySdk.url, many, { proxy: proxySdk, upstream: sdk });
    const cannedWatched = add('minimal upstream, proxy-only observed (insight checks off)', watchedCanned.url, many, {
      proxy: watchedCanned,
      upstream: canned,
    });
    const cannedChecked = add('minimal upstream, proxy-only observed, insight checks on', checkedCanned.url, many, {
      proxy: checkedCanned,
      upstream: canned,
    });
    const sdkWatched = add('SDK upstream, proxy-only observed (insight checks off)', watchedSdk.url, many, {
      proxy: watchedSdk,
      upstream: sdk,
    });
    const sdkChecked = add('SDK upstream, proxy-only observed, insight checks on', checkedSdk.url, many, {
      proxy: checkedSdk,
      upstream: sdk,
    });
    for (const t of targets) await t.client.handshake();

    log('bench: warming up');
    for (const t of targets) await t.client.run(t.bodies, CONCURRENCY, cfg.warmMs);

    // Compared servers are measured back to back, in ABC order on even rounds and CBA on odd ones.
    const groups = [
      [ceiling, r1, r10k, rMixed],
      [cannedDirect, cannedProxied, cannedBare],
      [sdkDirect, sdkProxied],
      [cannedWatched, cannedChecked],
      [sdkWatched, sdkChecked],
    ];
    const inOrder = (group: Target[], round: number): Target[] => (round % 2 ? [...group].reverse() : group);
    for (let round = 0; round < cfg.rounds; round++) {
      for (const t of groups.flatMap((g) => inOrder(g, round))) {
        const r = await t.meter.measure(() => t.client.run(t.bodies, CONCURRENCY, cfg.loadMs));
        t.row.requests += r.completed;
        t.row.rps.push(r.rps);
        t.row.p50Ms.push(r.p50Ms);
        t.row.p99Ms.push(r.p99Ms);
        t.row.errors += r.errors;
      }
      log(
        `bench: throughput round ${round + 1}/${cfg.rounds}: ${targets.map((t) => `${t.row.rps.at(-1)?.toFixed(0)}`).join(' / ')} req/s`,
      );
    }

    const latencyGroups = [
      [ceiling, r1],
      [cannedDirect, cannedProxied, cannedBare],
      [sdkDirect, sdkProxied],
    ];
    const latencyTargets = latencyGroups.flat();
    for (let round = 0; round < cfg.latRounds; round++) {
      for (const t of latencyGroups.flatMap((g) => inOrder(g, round))) {
        const r = await t.client.run(t.bodies, 1, cfg.latMs, 20_000);
        t.lat.p50Ms.push(r.p50Ms);
        t.lat.p99Ms.push(r.p99Ms);
        t.row.errors += r.errors;
      }
      log(
        `bench: latency round ${round + 1}/${cfg.latRounds}: ${latencyTargets.map((t) => `${t.lat.p50Ms.at(-1)?.toFixed(3)}`).join(' / ')} ms`,
      );
    }

    const ratio = (a: Target, b: Target): number[] => a.row.rps.map((v, i) => v / b.row.rps[i]);
    const added = (a: Target, b: Target): number[] => a.lat.p50Ms.map((v, i) => v - b.lat.p50Ms[i]);
    const cpuRatio = (a: Target, b: Target, label = 'server'): number[] => [
      cpuPerRequest(a.row, label) / cpuPerRequest(b.row, label),
    ];
    const goals: TargetRow[] = [
      { metric: 'replay-1 / ceiling (throughput)', values: ratio(r1, ceiling), target: 0.5, kind: 'min', unit: 'x' },
      { metric: 'replay-10k / replay-1 (throughput)', values: ratio(r10k, r1), target: 0.9, kind: 'min', unit: 'x' },
      {
        metric: 'replay-10k both revisions + errors / replay-10k (throughput)',
        values: ratio(rMixed, r10k),
        target: 0.9,
        kind: 'min',
        unit: 'x',
      },
      {
        metric: 'proxy-only / direct, minimal upstream (throughput)',
        values: ratio(cannedProxied, cannedDirect),
        target: 0.95,
        kind: 'min',
        unit: 'x',
      },
      {
        metric: 'proxy-only / direct, SDK upstream (throughput)',
        values: ratio(sdkProxied, sdkDirect),
        target: 0.95,
        kind: 'min',
        unit: 'x',
      },
      {
        metric: 'proxy-only added p50, minimal upstream (1 conn)',
        values: added(cannedProxied, cannedDirect),
        target: 0.3,
        kind: 'max',
        unit: 'ms',
      },
      {
        metric: 'proxy-only added p50, SDK upstream (1 conn)',
        values: added(sdkProxied, sdkDirect),
        target: 0.3,
        kind: 'max',
        unit: 'ms',
      },
      { metric: 'server CPU/request: replay-1 ÷ ceiling', values: cpuRatio(r1, ceiling), kind: 'max', unit: 'x' },
      { metric: 'server CPU/request: replay-10k ÷ replay-1', values: cpuRatio(r10k, r1), kind: 'max', unit: 'x' },
      {
        metric: 'server CPU/request: replay-10k both revisions + errors ÷ replay-10k',
        values: cpuRatio(rMixed, r10k),
        kind: 'max',
        unit: 'x',
      },
      {
        metric: 'reference: bare node:http proxy / direct (throughput)',
        values: ratio(cannedBare, cannedDirect),
        kind: 'min',
        unit: 'x',
      },
      {
        metric: 'reference: bare node:http proxy added p50 (1 conn)',
        values: added(cannedBare, cannedDirect),
        kind: 'max',
        unit: 'ms',
      },
      {
        metric: 'proxy-only / bare node:http proxy (throughput)',
        values: ratio(cannedProxied, cannedBare),
        target: 0.95,
        kind: 'min',
        unit: 'x',
      },
      {
        metric: 'proxy CPU/request: proxy-only ÷ bare node:http proxy',
        values: cpuRatio(cannedProxied, cannedBare, 'proxy'),
        kind: 'max',
        unit: 'x',
      },
      {
        metric: 'proxy-only observed, insight checks on ÷ off, minimal upstream (throughput)',
        values: ratio(cannedChecked, cannedWatched),
        target: 0.95,
        kind: 'min',
        unit: 'x',
      },
      {
        metric: 'proxy-only observed, insight checks on ÷ off, SDK upstream (throughput)',
        values: ratio(sdkChecked, sdkWatched),
        target: 0.95,
        kind: 'min',
        unit: 'x',
      },
      {
        metric: 'proxy CPU/request: insight checks on ÷ off, SDK upstream',
        values: cpuRatio(sdkChecked, sdkWatched, 'proxy'),
        kind: 'max',
        unit: 'x',
      },
    ];
    const config = `${QUICK ? 'BENCH_QUICK' : 'full'}: ${cfg.rounds} interleaved rounds × ${cfg.loadMs} ms at ${CONCURRENCY} connections; latency ${cfg.latRounds} rounds × ${cfg.latMs} ms at 1 connection; total ${((performance.now() - started) / 1000).toFixed(0)} s; ${engineLabel()}`;
    const markdown = summary(
      config,
      targets.map((t) => t.row),
      latencyTargets.map((t) => t.lat),
      goals,
    );
    process.stdout.write(`\n${markdown}`);
    log(`bench: summary written to ${await save(markdown)}`);
    if (median(ratio(r1, ceiling)) < 0.5) log('bench: replay is far from the ceiling: profile it with BENCH_PROFILE=1');
  } finally {
    for (const t of targets) t.client.close();
    await Promise.all(children.map((c) => c.stop()));
    await rm(tmp, { recursive: true, force: true });
    if (profileDir) log(`bench: cpu profiles in ${profileDir} (summarise: node --import tsx bench/prof-top.ts <file>)`);
  }
}

await main();
