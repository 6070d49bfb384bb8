/**
 * proxy-only as the app runs it, for the insight benchmark: every finished exchange goes to a listener that keeps
 * the newest 1,000 (the timeline's part of the work), and with `--insight` also through the insight observer
 * (protocol checks, security warnings, token counts; issue 26).
 *   node --import tsx bench/servers/observed.ts <upstreamUrl> [--insight]
 */
import type * as Engine from '../../src/main/engine/proxy.js';
import type * as Observer from '../../src/main/engine/insight/observer.js';
import type * as SchemaCheck from '../../src/main/api/verbs/schema-check.js';
import type { ExchangeEvent } from '../../src/shared/traffic.js';
import { engineKind, engineProxyUrl } from '../engine.js';
import { announce } from './serve.js';

const [target, flag] = process.argv.slice(2);
if (!target) {
  process.stderr.write('usage: observed.ts <upstreamUrl> [--insight]\n');
  process.exit(2);
}
const built = (path: string): string =>
  new URL(
    `../../${engineKind() === 'dist' ? 'dist' : 'src'}/main/${path}.${engineKind() === 'dist' ? 'js' : 'ts'}`,
    import.meta.url,
  ).href;
const { startProxy } = (await import(engineProxyUrl().href)) as typeof Engine;
const proxy = await startProxy({ mode: 'proxy-only', upstreamUrl: target });
const kept: ExchangeEvent[] = [];
let checked = 0;
let counted = 0;
let problems = 0;
const keep = (event: ExchangeEvent): void => {
  kept.push(event);
  if (kept.length > 1_000) kept.splice(0, 100);
};
if (flag === '--insight') {
  const { InsightObserver } = (await import(built('engine/insight/observer'))) as typeof Observer;
  const { checkAgainstSchema } = (await import(built('api/verbs/schema-check'))) as typeof SchemaCheck;
  const observer = new InsightObserver<ExchangeEvent>(
    checkAgainstSchema,
    (batch) => {
      for (const { insight } of batch) {
        if (insight.tokens !== undefined) counted++;
        else {
          checked++;
          problems += insight.problems.length;
        }
      }
    },
    (line) => process.stderr.write(`${line}\n`),
  );
  proxy.events.on('exchange', (event) => {
    keep(event);
    observer.observe(event, 'bench', event);
  });
} else proxy.events.on('exchange', keep);
process.on(
  'exit',
  () =>
    flag === '--insight' &&
    process.stderr.write(
      `  insight: ${checked} exchanges checked (${problems} findings), ${counted} token counts (paced)\n`,
    ),
);
announce(proxy.url, () => proxy.close());
