import type { JsonRpcRequest, JsonRpcResponse } from '../../../../shared/jsonrpc.js';
import {
  firstInputRequest,
  isModernRevision,
  LEGACY_REVISIONS,
  PROTOCOL_ERROR,
} from '../../../../shared/mcp-protocol.js';
import type { CassetteStore } from '../../cassette/store.js';
import type { CassetteOffer, Refused } from '../core/contract.js';
import type { LiveExchange } from '../core/exchange.js';
import { refuse } from './replay-protocol.js';

/**
 * initialize: the recorded answer for the version the client asks, when the cassette holds one; else an older 2025-era
 * revision is answered as asked (the SDK servers' rule: they speak every earlier revision); else the latest
 * version the recorded server negotiated (the spec: a server answers a version it does not support with another one
 * it supports, SHOULD be its latest). A server that refused initialize (a 2026-only server) refuses it again.
 */
export function negotiate(
  store: CassetteStore,
  exchange: LiveExchange,
  miss: (exchange: LiveExchange) => JsonRpcResponse,
): CassetteOffer {
  const entries = store.lookup('initialize');
  if (!entries?.length) return { miss: () => ({ response: miss(exchange) }) };
  const requested = exchange.request.params?.protocolVersion;
  const answers = entries.filter((e) => !e.error);
  if (!answers.length) return { entry: entries[0] };
  const same = answers.find((e) => e.result.protocolVersion === requested);
  if (same) return { entry: same };
  let latest = answers[0];
  for (const e of answers)
    if (String(e.result.protocolVersion ?? '') > String(latest.result.protocolVersion ?? '')) latest = e;
  // an older revision the SDK servers (TypeScript, Python) still speak is answered as asked, as they did live
  const newest = String(latest.result.protocolVersion ?? '');
  if (
    typeof requested === 'string' &&
    (LEGACY_REVISIONS as readonly string[]).includes(requested) &&
    requested < newest &&
    !isModernRevision(newest)
  )
    return { entry: { ...latest, result: { ...latest.result, protocolVersion: requested } } };
  return { entry: latest };
}

/** An input_required answer asking what this client did not declare: the server answers -32021 instead (MRTR). */
export function missingCapability(
  request: JsonRpcRequest,
  result: Record<string, unknown>,
  lacking: Record<string, unknown>,
): Refused {
  const capability = Object.keys(lacking)[0];
  const input = firstInputRequest(result, capability);
  const message = input
    ? `Cannot request input '${input.key}' (${input.method}): the request's client capabilities do not declare the required capability`
    : `the request's client capabilities do not declare ${capability}`;
  return refuse(400, request.id, PROTOCOL_ERROR.MissingRequiredClientCapability, message, {
    requiredCapabilities: lacking,
  });
}

/** The Accept of a POST the reference SDK server takes: both JSON and SSE named. */
export function acceptsBoth(accept: string | undefined): boolean {
  return accept !== undefined && accept.includes('application/json') && accept.includes('text/event-stream');
}
