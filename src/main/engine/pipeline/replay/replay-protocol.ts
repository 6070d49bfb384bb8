import type { CassetteEntry, Framing, RefusalKind } from '../../../../shared/cassette/entry.js';
import { errorResponse, ErrorCode, type JsonRpcId, type JsonRpcRequest } from '../../../../shared/jsonrpc.js';
import {
  conditionOf,
  eraOf,
  headerMismatch,
  isModernRevision,
  LEGACY_REVISIONS,
  META,
  metaCapabilities,
  metaVersion,
  PROTOCOL_ERROR,
  type Era,
} from '../../../../shared/mcp-protocol.js';
import { keyFor, refusalKey } from '../../cassette/keys.js';
import type { CassetteStore } from '../../cassette/store.js';
import type { Refused } from '../core/contract.js';
import type { RequestHeaders } from '../core/exchange.js';

/**
 * What replay knows of the recorded server from its cassette, and the protocol-level answers it derives from that:
 * the revisions the server spoke, whether it had sessions, how it refused what it refused. Read from a handful of
 * keys (initialize, server/discover, the refusals), never from a scan of the cassette.
 */
export interface ServerProfile {
  /** 2025-era revisions the server negotiated (its initialize answers), latest last */
  legacy: string[];
  /** 2026-era revisions it declared (server/discover's supportedVersions, an UnsupportedProtocolVersion error's data) */
  modern: string[];
  /** the versions as the server listed them (server/discover's supportedVersions), for -32022's data.supported */
  declared?: string[];
  /** it issued no Mcp-Session-Id */
  stateless: boolean;
  /**
   * how its answers usually travelled (JSON or SSE, event ids, priming, the order of the members): for mcp-rewind's bare entries (initialize, the lists), which keep
   * no framing of their own — read from the first entries that do
   */
  framing?: Framing;
}

/** The key of `server/discover` (its params are only `_meta`). */
export const DISCOVER_KEY = keyFor({ method: 'server/discover', params: {} });

export function profileOf(store: CassetteStore): ServerProfile {
  const legacy = new Set<string>();
  const modern = new Set<string>();
  let stateless = false;
  let declared: string[] | undefined;
  for (const e of store.lookup('initialize') ?? []) {
    const v = e.result.protocolVersion;
    if (typeof v === 'string' && !e.error) legacy.add(v);
    if (e.stateless) stateless = true;
  }
  for (const e of store.lookup(DISCOVER_KEY) ?? []) {
    const versions = e.result.supportedVersions;
    if (Array.isArray(versions)) {
      declared ??= versions.filter((v): v is string => typeof v === 'string');
      for (const v of declared) (isModernRevision(v) ? modern : legacy).add(v);
    }
    if (typeof e.protocolVersion === 'string' && isModernRevision(e.protocolVersion)) modern.add(e.protocolVersion);
  }
  return { legacy: [...legacy].sort(), modern: [...modern].sort(), declared, stateless, framing: usualFraming(store) };
}

/** The framing of the first recorded entries that kept theirs (a bounded look: the server answers alike). */
function usualFraming(store: CassetteStore): Framing | undefined {
  let looked = 0;
  for (const key of store.keys()) {
    const framing = store.lookup(key)?.find((e) => e.framing && !e.refusal)?.framing;
    if (framing) return { ...framing, resumedAfter: undefined, ids: undefined, lines: undefined };
    if (++looked >= 64) return undefined;
  }
  return undefined;
}

/** The revision and capabilities a live request is made in (the `_meta` of 2026-07-28, else its session's). */
export interface RequestContext {
  version?: string;
  era: Era;
  capabilities?: Record<string, unknown>;
}

export function contextOf(
  request: JsonRpcRequest,
  sessionVersion: string | undefined,
  sessionCapabilities: Record<string, unknown> | undefined,
): RequestContext {
  const version = metaVersion(request.params);
  if (version !== undefined) return { version, era: 'modern', capabilities: metaCapabilities(request.params) };
  return { version: sessionVersion, era: 'legacy', capabilities: sessionCapabilities };
}

/**
 * The entries of a key that may answer a request in this context: the same revision first, else the same era (never
 * an answer of the other era); an error that depended on headers, the revision or the envelope never (the protocol
 * checks answer those); a missing-capability error only to a client that lacks that capability, and then before
 * anything else. Returns `entries` itself when every entry fits (the common case allocates nothing).
 */
export function applicable(entries: readonly CassetteEntry[], ctx: RequestContext): readonly CassetteEntry[] {
  let sameVersion = 0;
  let sameEra = 0;
  let capability = 0;
  for (const e of entries) {
    const fit = fits(e, ctx);
    if (fit === 3) capability++;
    else if (fit === 2) sameVersion++;
    else if (fit === 1) sameEra++;
  }
  if (capability > 0) return entries.filter((e) => fits(e, ctx) === 3);
  if (sameVersion === entries.length || sameEra === entries.length) return entries;
  if (sameVersion > 0) return entries.filter((e) => fits(e, ctx) === 2);
  return entries.filter((e) => fits(e, ctx) === 1);
}

/** 0 no, 1 same era, 2 same revision, 3 a missing-capability error this client earns */
function fits(e: CassetteEntry, ctx: RequestContext): 0 | 1 | 2 | 3 {
  if (e.error) {
    const condition = conditionOf(e.error);
    if (condition === 'capability')
      return lacks(
        ctx.capabilities,
        (e.error.data as { requiredCapabilities?: Record<string, unknown> } | undefined)?.requiredCapabilities,
      ) && sameEraOf(e, ctx)
        ? 3
        : 0;
    if (condition !== undefined) return 0;
  }
  if (e.protocolVersion !== undefined && e.protocolVersion === ctx.version) return 2;
  return sameEraOf(e, ctx) ? 1 : 0;
}

const sameEraOf = (e: CassetteEntry, ctx: RequestContext): boolean =>
  (eraOf(e.protocolVersion) ?? 'legacy') === ctx.era;

function lacks(declared: Record<string, unknown> | undefined, required: Record<string, unknown> | undefined): boolean {
  if (!required) return false;
  return Object.keys(required).some((capability) => !(declared && capability in declared));
}

/**
 * The 2026-07-28 checks a modern request passes before any answer (basic/index.mdx `_meta`, versioning, Streamable
 * HTTP "Server Validation"), in the TypeScript SDK's order and words: the `_meta` envelope (-32602),
 * headers that disagree with the body (-32020: the SDK cross-checks them while classifying, before any version
 * check), a revision the recorded server does not speak (-32022 with data.supported). A
 * recorded answer to the same mistake, on the same key, is preferred to the made-up one.
 */
export function modernRefusal(
  request: JsonRpcRequest,
  headers: RequestHeaders,
  profile: ServerProfile,
  recorded: readonly CassetteEntry[] | undefined,
): Refused | undefined {
  const version = metaVersion(request.params);
  const claimed = version ?? headers.protocolVersion ?? '';
  const missing =
    version === undefined
      ? META.protocolVersion
      : metaCapabilities(request.params) === undefined
        ? META.clientCapabilities
        : undefined;
  if (missing) {
    return (
      sameMistake(recorded, request.id, (e) => conditionOf(e.error) === 'envelope') ??
      refuse(
        400,
        request.id,
        ErrorCode.InvalidParams,
        `Invalid _meta envelope for protocol revision ${claimed}: ${missing}: missing`,
        { envelope: { key: missing, problem: 'missing' } },
      )
    );
  }
  const mismatch = headerMismatch(request, headers);
  if (mismatch) {
    const sameHeader = (e: CassetteEntry): boolean =>
      conditionOf(e.error) === 'headers' &&
      (e.error?.data as { mismatch?: { header?: string } } | undefined)?.mismatch?.header === mismatch.header;
    return (
      sameMistake(recorded, request.id, sameHeader) ??
      refuse(
        400,
        request.id,
        PROTOCOL_ERROR.HeaderMismatch,
        `Bad Request: the request headers and body disagree: ${mismatch.body}`,
        { mismatch },
      )
    );
  }
  if (profile.modern.length > 0 && !profile.modern.includes(claimed)) {
    const sameVersion = (e: CassetteEntry): boolean =>
      conditionOf(e.error) === 'version' &&
      (e.error?.data as { requested?: string } | undefined)?.requested === claimed;
    const supported = profile.declared ?? profile.modern;
    return (
      sameMistake(recorded, request.id, sameVersion) ??
      refuse(400, request.id, PROTOCOL_ERROR.UnsupportedProtocolVersion, `Unsupported protocol version: ${claimed}`, {
        supported,
        requested: claimed,
      })
    );
  }
  return undefined;
}

/** The recorded answer to the same mistake, answered to this request's id (with the recorded status). */
function sameMistake(
  recorded: readonly CassetteEntry[] | undefined,
  id: JsonRpcId,
  matches: (e: CassetteEntry) => boolean,
): Refused | undefined {
  const own = recorded?.find(matches);
  return own?.error
    ? { status: own.status ?? 400, response: errorResponse(id, own.error.code, own.error.message, own.error.data) }
    : undefined;
}

export function refuse(status: number, id: JsonRpcId | null, code: number, message: string, data?: unknown): Refused {
  return { status, response: errorResponse(id, code, message, data) };
}

/**
 * How the server refuses a whole POST of this kind: as recorded (key `refusal_<kind>`), else in the words of the
 * TypeScript SDK's Streamable HTTP server (the reference implementation) for the cassette's revisions.
 */
export function refusalFor(
  kind: RefusalKind,
  store: CassetteStore | undefined,
  profile: ServerProfile | undefined,
  detail?: string,
): Refused {
  const recorded = store?.lookup(refusalKey(kind))?.[0];
  if (recorded?.error)
    return {
      status: recorded.status ?? 400,
      response: errorResponse(null, recorded.error.code, recorded.error.message, recorded.error.data),
    };
  switch (kind) {
    case 'session-not-found':
      return refuse(404, null, ErrorCode.SessionNotFound, 'Session not found');
    case 'not-initialized':
      return refuse(400, null, -32000, 'Bad Request: Server not initialized');
    case 'unsupported-protocol-version': {
      const supported = [...new Set([...(profile?.legacy ?? []), ...(profile?.modern ?? []), ...LEGACY_REVISIONS])]
        .sort()
        .reverse();
      return refuse(
        400,
        null,
        -32000,
        `Bad Request: Unsupported protocol version: ${detail ?? ''} (supported versions: ${supported.join(', ')})`,
      );
    }
    case 'parse-error':
      return refuse(400, null, ErrorCode.ParseError, detail ?? 'Parse error');
    case 'invalid-message':
      return refuse(400, null, ErrorCode.InvalidRequest, detail ?? 'Invalid Request');
    case 'batch-refused':
      return refuse(400, null, ErrorCode.InvalidRequest, 'Invalid Request: batches are not supported');
    case 'delete-not-allowed':
      return refuse(405, null, -32000, 'Method not allowed.');
    case 'not-acceptable':
      return refuse(
        406,
        null,
        -32000,
        'Not Acceptable: Client must accept both application/json and text/event-stream',
      );
  }
}

/** Is the MCP-Protocol-Version header of a 2025-era request one the recorded server would refuse? */
export function unsupportedHeader(version: string | undefined, profile: () => ServerProfile): boolean {
  if (version === undefined || (LEGACY_REVISIONS as readonly string[]).includes(version)) return false;
  if (isModernRevision(version)) return false; // a 2026-07-28 request: its own checks
  return !profile().legacy.includes(version);
}
