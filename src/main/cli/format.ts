import type { ExchangeEvent } from '../../shared/traffic.js';
import { oneLine } from '../../shared/terminal-text.js';

/** The word a verbose log line starts with: what the cassette did, or where the answer came from. */
function outcome(e: ExchangeEvent): string {
  if (e.cassette !== 'none') return e.cassette === 'recorded' ? 'record' : e.cassette;
  return e.source === 'upstream' ? 'live' : e.source;
}

/** One line per exchange for --verbose: `hit    tools/call echo  tools_call_echo_…  0.4 ms`, its flags last (`[not recorded: ENOSPC]`). */
export function formatExchange(e: ExchangeEvent): string {
  // names from the wire: one line each, control characters escaped
  const what = oneLine(e.tool !== undefined ? `${e.method} ${e.tool}` : e.method);
  const error =
    e.response && 'error' in e.response
      ? `  error ${e.response.error.code}: ${oneLine(String(e.response.error.message))}`
      : '';
  const streamed = e.stream.length ? `  (+${e.stream.length} streamed)` : '';
  const flags = e.flags?.length ? `  [${e.flags.map(oneLine).join('; ')}]` : '';
  return `${outcome(e).padEnd(6)} ${what}  ${oneLine(e.key)}  ${e.durationMs.toFixed(1)} ms${streamed}${error}${flags}`;
}
