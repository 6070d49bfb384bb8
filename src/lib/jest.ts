/**
 * mcp-rewind for jest: a cassette per test, named after the test, closed after each test — and the test fails with
 * the miss summary when its strict replay missed. Call setupCassettes() in a setup file (setupFilesAfterEnv), then
 * `await useCassette()` in a test. Entry point: mcp-rewind/jest.
 */
import { finishCassette, proxyForTest, transportForTest, type CassetteDefaults, type TestInfo } from './helpers.js';
import { OptionsError } from './errors.js';
import type { RunningProxy } from './start-proxy.js';
import type { McpTransport } from './transport.js';
import type { WrapOptions, WrappedTransport } from './wrap-transport.js';

export type { CassetteDefaults } from './helpers.js';

/** jest's globals, as far as the helpers use them (injected by jest; never imported, so nothing loads jest here). */
interface JestGlobals {
  expect?: { getState(): TestInfo };
  afterEach?: (fn: () => Promise<void>) => void;
}

let defaults: CassetteDefaults | undefined;
const open: Array<RunningProxy | WrappedTransport> = [];

function jestGlobals(): Required<JestGlobals> {
  const g = globalThis as JestGlobals;
  if (!g.expect || !g.afterEach)
    throw new OptionsError(
      "mcp-rewind/jest needs jest's globals (expect, afterEach): run it under jest with injectGlobals on",
    );
  return g as Required<JestGlobals>;
}

/**
 * In a setup file (setupFilesAfterEnv): the options every useCassette() starts from, and an afterEach that closes
 * each test's proxies and transports and fails the test when its strict replay missed.
 */
export function setupCassettes(options: CassetteDefaults = {}): void {
  defaults = { ...options };
  jestGlobals().afterEach(async () => {
    const used = open.splice(0);
    for (const item of used) await finishCassette(item);
  });
}

function testInfo(): TestInfo {
  if (!defaults)
    throw new OptionsError(
      'call setupCassettes() first, in a setup file (jest setupFilesAfterEnv): it closes the cassettes after each test',
    );
  return jestGlobals().expect.getState();
}

/** Inside a test: starts a proxy on this test's cassette (`__cassettes__/<test name>-<hash>` beside the test file). */
export async function useCassette(options: CassetteDefaults = {}): Promise<RunningProxy> {
  const test = testInfo();
  const proxy = await proxyForTest(test, { ...defaults, ...options });
  open.push(proxy);
  return proxy;
}

/** Inside a test: wrapTransport on this test's cassette, closed after the test. */
export function useCassetteTransport(
  transport: McpTransport,
  options: WrapOptions & { dir?: string } = {},
): WrappedTransport {
  const test = testInfo();
  const { upstream: _upstream, port: _port, rules: _rules, replayTiming: _timing, ...shared } = defaults ?? {};
  const wrapped = transportForTest(test, transport, { ...shared, ...options });
  open.push(wrapped);
  return wrapped;
}
