/**
 * mcp-rewind as a library for test suites: record and replay MCP from test code, as Polly.JS and VCR do for HTTP.
 * The engine runs in this process; Electron and React are never loaded. Reference: docs/library-api.md.
 */
export { startProxy, type ProxyOptions, type RunningProxy, type UpstreamOption } from './start-proxy.js';
export { wrapTransport, type WrapOptions, type WrappedTransport } from './wrap-transport.js';
export type { McpTransport, TransportMessage } from './transport.js';
export { resolveMode, type LibraryMode, type ResolvedMode } from './mode.js';
export type { CassetteOptions, RepeatPolicy, RulesFile } from './options.js';
export { cassetteName, cassettePath } from './cassette-name.js';
export { CassetteMissError, CassetteMissingError, OptionsError, UnreachableError } from './errors.js';
export {
  describeMiss,
  describeMisses,
  type ClosestKey,
  type Difference,
  type ReplayMiss,
} from '../shared/cassette/miss.js';
export type { ExchangeEvent } from '../shared/traffic.js';
export type { Mode } from '../shared/modes.js';
