import type { CassetteEntry } from '../../../../shared/cassette/entry.js';
import type { JsonRpcRequest } from '../../../../shared/jsonrpc.js';
import { metaCapabilities } from '../../../../shared/mcp-protocol.js';
import { canonicalJson, EMPTY_LIST_RESULTS } from '../../cassette/keys.js';

/**
 * Servers list by the client's declared capabilities (server-everything adds its roots, sampling and elicitation tools
 * only for clients that declare them), so a list is recorded with the capabilities its client declared and replayed
 * to clients that declare the same ones.
 */

/** The capabilities a list request's client declared (its `_meta`, else its session's initialize); none for other methods. */
export function listCapabilities(
  request: JsonRpcRequest,
  sessionCapabilities: Record<string, unknown> | undefined,
): Record<string, unknown> | undefined {
  if (!EMPTY_LIST_RESULTS.has(request.method)) return undefined;
  const caps = metaCapabilities(request.params) ?? sessionCapabilities;
  return caps && Object.keys(caps).length > 0 ? caps : undefined;
}

const capsText = (caps: Record<string, unknown> | undefined): string => canonicalJson(caps ?? {});

/** A recorded list is the same as a live one: same answer, declared to the same capabilities. */
export function sameList(entry: CassetteEntry, result: unknown, caps: Record<string, unknown> | undefined): boolean {
  return capsText(entry.clientCapabilities) === capsText(caps) && canonicalJson(entry.result) === canonicalJson(result);
}

/** What the recorded lists of a key say to a client's capabilities. */
export interface CapabilityFit {
  entries: readonly CassetteEntry[];
  /** names the capability set the cursor walks (entries recorded for other sets are not walked with it) */
  cursorSuffix: string;
  /** every entry was recorded for other capabilities: what differs, in words */
  mismatch?: string;
}

/**
 * The entries recorded for exactly these capabilities, else all of them with the difference named (strict mode misses
 * with it). An entry without capabilities was recorded for a client that declared none (the recorder keeps a list in
 * mcp-rewind's bare form then); a key none of whose entries names capabilities (mcp-rewind's own) fits every client.
 */
export function fitCapabilities(
  entries: readonly CassetteEntry[],
  caps: Record<string, unknown> | undefined,
): CapabilityFit {
  if (!entries.some((e) => e.clientCapabilities)) return { entries, cursorSuffix: '' };
  const text = capsText(caps);
  const same = entries.filter((e) => capsText(e.clientCapabilities) === text);
  if (same.length) return { entries: same, cursorSuffix: same.length === entries.length ? '' : `#caps${text}` };
  const recorded = entries.map((e) => capsText(e.clientCapabilities));
  return {
    entries,
    cursorSuffix: '',
    mismatch: `recorded for client capabilities ${[...new Set(recorded)].join(' or ')}, this client declares ${text}`,
  };
}
