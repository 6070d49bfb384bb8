import type { IncomingHttpHeaders } from 'node:http';
import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import {
  ErrorCode,
  errorResponse,
  invalidMessageReason,
  type JsonRpcMessage,
  type JsonRpcRequest,
} from '../../../../shared/jsonrpc.js';
import { HttpError } from '../../errors.js';
import { parseJsonBody } from '../../http/body.js';
import { firstValue } from '../../http/url.js';
import { jsonAnswer, type BridgeAnswer } from './answer.js';

/** What the SDK's server transport refuses, refused the same way (status, code and wording), before anything runs. */

/** the SDK transport's code for a refused HTTP request (-32000), unless the refusal is about the message itself */
const HTTP_REFUSAL = -32000;

const refuse = (status: number, message: string, code = HTTP_REFUSAL): BridgeAnswer =>
  jsonAnswer(status, errorResponse(null, code, message));

export const sessionNotFound = (): BridgeAnswer =>
  jsonAnswer(404, { jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null });

export const sessionRequired = (status = 400): BridgeAnswer =>
  refuse(status, 'Bad Request: Mcp-Session-Id header is required');

export const alreadyInitialized = (): BridgeAnswer =>
  refuse(400, 'Invalid Request: Server already initialized', ErrorCode.InvalidRequest);

/** A POST's headers: JSON in, JSON and SSE accepted; after initialize, a protocol version the SDK supports. */
export function refusePost(headers: IncomingHttpHeaders, initialized: boolean): BridgeAnswer | undefined {
  const accept = firstValue(headers.accept) ?? '';
  if (!accept.includes('application/json') || !accept.includes('text/event-stream'))
    return refuse(406, 'Not Acceptable: Client must accept both application/json and text/event-stream');
  if (!(firstValue(headers['content-type']) ?? '').includes('application/json'))
    return refuse(415, 'Unsupported Media Type: Content-Type must be application/json');
  const version = firstValue(headers['mcp-protocol-version']);
  if (initialized && version !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(version))
    return refuse(
      400,
      `Bad Request: Unsupported protocol version: ${version} (supported versions: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')})`,
    );
  return undefined;
}

/** A POST's body as JSON-RPC messages, or the 400 it gets. */
export function readMessages(body: Buffer | undefined): { messages: JsonRpcMessage[] } | { refused: BridgeAnswer } {
  let parsed: unknown;
  try {
    parsed = parseJsonBody(body ?? Buffer.alloc(0));
  } catch (error) {
    if (!(error instanceof HttpError)) throw error;
    return { refused: jsonAnswer(error.status, error.toResponse(null)) };
  }
  const messages = (Array.isArray(parsed) ? parsed : [parsed]) as JsonRpcMessage[];
  if (messages.length === 0 || messages.some((m) => invalidMessageReason(m) !== null))
    return { refused: refuse(400, 'Parse error: Invalid JSON-RPC message', ErrorCode.ParseError) };
  return { messages };
}

export const isInitialize = (m: JsonRpcMessage): m is JsonRpcRequest => 'method' in m && m.method === 'initialize';
