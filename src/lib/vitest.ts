/**
 * mcp-rewind for vitest: a cassette per test, named after the test, closed when the test ends — and the test fails
 * with the miss summary when its strict replay missed. Entry point: mcp-rewind/vitest.
 */
import { expect, onTestFinished } from 'vitest';
import { finishCassette, proxyForTest, transportForTest, type CassetteDefaults } from './helpers.js';
import type { RunningProxy } from './start-proxy.js';
import type { McpTransport } from './transport.js';
import type { WrapOptions, WrappedTransport } from './wrap-transport.js';

export type { CassetteDefaults } from './helpers.js';

let defaults: CassetteDefaults = {};

/**
 * Sets the options every useCassette() and useCassetteTransport() of this test file (or, from a setup file, of the
 * suite) starts from — typically the upstream and the cassette folder. Options given to a call win.
 */
export function setupCassettes(options: CassetteDefaults): void {
  defaults = { ...options };
}

/**
 * Inside a test: starts a proxy on this test's cassette (`__cassettes__/<test name>-<hash>` beside the test file) and
 * closes it when the test ends; a strict replay that missed fails the test with a CassetteMissError.
 */
export async function useCassette(options: CassetteDefaults = {}): Promise<RunningProxy> {
  const proxy = await proxyForTest(expect.getState(), { ...defaults, ...options });
  onTestFinished(() => finishCassette(proxy));
  return proxy;
}

/** Inside a test: wrapTransport on this test's cassette, closed when the test ends (strict misses fail the test). */
export function useCassetteTransport(
  transport: McpTransport,
  options: WrapOptions & { dir?: string } = {},
): WrappedTransport {
  const { upstream: _upstream, port: _port, rules: _rules, replayTiming: _timing, ...shared } = defaults;
  const wrapped = transportForTest(expect.getState(), transport, { ...shared, ...options });
  onTestFinished(() => finishCassette(wrapped));
  return wrapped;
}
