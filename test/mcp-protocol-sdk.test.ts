import { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { localAnswer } from '../src/main/engine/pipeline/core/plan.js';
import { ANSWERED_REVISIONS } from '../src/shared/mcp-protocol.js';

describe("the proxy's own initialize answer", () => {
  it('takes the revisions the v1 SDK supports, newest first (shared/mcp-protocol.ts says them without the SDK)', () => {
    expect(ANSWERED_REVISIONS).toEqual(SUPPORTED_PROTOCOL_VERSIONS);
    expect(ANSWERED_REVISIONS[0]).toBe(LATEST_PROTOCOL_VERSION);
  });

  it('answers a supported revision with it, anything else with the newest', () => {
    const answer = (protocolVersion: string): unknown =>
      localAnswer(
        { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion } },
        { name: 'x', version: '1' },
      );
    expect(answer('2025-03-26')).toMatchObject({ result: { protocolVersion: '2025-03-26' } });
    expect(answer('1999-01-01')).toMatchObject({ result: { protocolVersion: LATEST_PROTOCOL_VERSION } });
  });
});
