import { dirname, join } from 'node:path';
import { cassettePath } from './cassette-name.js';
import { OptionsError } from './errors.js';
import { startProxy, type ProxyOptions, type RunningProxy } from './start-proxy.js';
import type { McpTransport } from './transport.js';
import { wrapTransport, type WrapOptions, type WrappedTransport } from './wrap-transport.js';

/** Options of useCassette() and setupCassettes(): startProxy's, and where the tests' cassettes live. */
export interface CassetteDefaults extends ProxyOptions {
  /** the folder of the cassettes, one sub-folder per test (default `__cassettes__` beside the test file) */
  dir?: string;
}

/** The test a helper runs in, as the framework says it (vitest's and jest's expect.getState()). */
export interface TestInfo {
  currentTestName?: string;
  testPath?: string;
}

/** The cassette of the current test: the one given, else `<dir>/<cassetteName(full test name)>`. */
export function testCassette(test: TestInfo, options: CassetteDefaults): string {
  if (options.cassette) return options.cassette;
  if (!test.currentTestName)
    throw new OptionsError('useCassette() must be called inside a test (it names the cassette after the test)');
  const dir = options.dir ?? join(test.testPath ? dirname(test.testPath) : process.cwd(), '__cassettes__');
  return cassettePath(test.currentTestName, dir);
}

/** Closes a test's proxy or transport, then fails the test with the miss summary when its strict replay missed. */
export async function finishCassette(used: RunningProxy | WrappedTransport): Promise<void> {
  await used.close();
  if (used.strict) used.assertNoMisses();
}

/** startProxy on the current test's cassette. */
export function proxyForTest(test: TestInfo, options: CassetteDefaults): Promise<RunningProxy> {
  const { dir: _dir, ...rest } = options;
  return startProxy({ ...rest, cassette: testCassette(test, options) });
}

/** wrapTransport on the current test's cassette. */
export function transportForTest(
  test: TestInfo,
  transport: McpTransport,
  options: WrapOptions & { dir?: string },
): WrappedTransport {
  const { dir: _dir, ...rest } = options;
  return wrapTransport(transport, { ...rest, cassette: testCassette(test, options) });
}
