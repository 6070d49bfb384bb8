/**
 * mcp-rewind's engine as a bench server:
 *   node --import tsx bench/servers/proxy.ts replay <cacheDir>
 *   node --import tsx bench/servers/proxy.ts proxy-only <upstreamUrl>
 *   node --import tsx bench/servers/proxy.ts record <upstreamUrl> <cacheDir> [--no-fsync]
 * BENCH_PORT=n listens there (the scale bench polls the port from the moment it spawns the process).
 * BENCH_ENGINE=dist (what `npm run bench` builds first, and what the CLI ships) loads the tsc output from dist/;
 * BENCH_ENGINE=src runs src/ through tsx, whose esbuild transform adds per-closure `__name` calls: a few % slower.
 */
import type * as Engine from '../../src/main/engine/proxy.js';
import { engineProxyUrl } from '../engine.js';
import { announce } from './serve.js';

const [mode, target, cacheDir, flag] = process.argv.slice(2);
if ((mode !== 'replay' && mode !== 'proxy-only' && mode !== 'record') || !target || (mode === 'record' && !cacheDir)) {
  process.stderr.write(
    'usage: proxy.ts replay <cacheDir> | proxy-only <upstreamUrl> | record <upstreamUrl> <cacheDir> [--no-fsync]\n',
  );
  process.exit(2);
}

const { startProxy } = (await import(engineProxyUrl().href)) as typeof Engine;
const port = process.env.BENCH_PORT ? Number(process.env.BENCH_PORT) : undefined;
const proxy = await startProxy(
  mode === 'replay'
    ? { mode, cacheDir: target, port }
    : mode === 'record'
      ? { mode, upstreamUrl: target, cacheDir, durable: flag !== '--no-fsync', port }
      : { mode, upstreamUrl: target, port },
);
if (proxy.store) process.stderr.write(`  ${mode} proxy: ${proxy.store.size} cassette entries indexed by name\n`);
announce(proxy.url, () => proxy.close());
