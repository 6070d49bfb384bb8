/**
 * mcp-rewind's engine as a bench server:
 *   node --import tsx bench/servers/proxy.ts replay <cacheDir>
 *   node --import tsx bench/servers/proxy.ts proxy-only <upstreamUrl>
 * BENCH_ENGINE=dist (what `npm run bench` builds first, and what the CLI ships) loads the tsc output from dist/;
 * BENCH_ENGINE=src runs src/ through tsx, whose esbuild transform adds per-closure `__name` calls: a few % slower.
 */
import type * as Engine from '../../src/main/engine/proxy.js';
import { engineProxyUrl } from '../engine.js';
import { announce } from './serve.js';

const [mode, target] = process.argv.slice(2);
if ((mode !== 'replay' && mode !== 'proxy-only') || !target) {
  process.stderr.write('usage: proxy.ts replay <cacheDir> | proxy-only <upstreamUrl>\n');
  process.exit(2);
}

const { startProxy } = (await import(engineProxyUrl().href)) as typeof Engine;
const proxy = await startProxy(mode === 'replay' ? { mode, cacheDir: target } : { mode, upstreamUrl: target });
if (proxy.store) process.stderr.write(`  replay proxy: ${proxy.store.size} cassette entries loaded\n`);
announce(proxy.url, () => proxy.close());
