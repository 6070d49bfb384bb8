/**
 * A POST stream the server closes before its first message (SSE polling with nothing sent yet: `resumedAfter: 0`)
 * completes in replay as it did live: the client resumes with Last-Event-ID and the answer arrives there (issue 21
 * item 4). Three ways — straight at the SDK v1 fixture server, through record, through replay with the server
 * stopped — with the v1 and the v2 SDK clients.
 */
import { afterEach, expect, it } from 'vitest';
import { connectClient } from '../fixtures/client.js';
import { startSdkServer } from '../fixtures/sdk-server.js';
import { connectV2Client } from '../fixtures/v2-client.js';
import { removeTempDirs } from '../helpers/temp.js';
import { outcome, threeWays } from '../helpers/three-ways.js';

afterEach(removeTempDirs);

// no progress token: the tool sends nothing before it closes its POST stream
const POLL = { name: 'poll', arguments: { steps: 2 } };

it('a stream closed before its first message is resumed and answered in replay (SDK v1 and v2 clients)', async () => {
  const { direct, recorded, replayed } = await threeWays(
    () => startSdkServer({ resumable: { retryMs: 40 } }),
    async (url) => {
      const v1 = await connectClient(url);
      const v2 = await connectV2Client(url);
      try {
        const timeout = { timeout: 5_000 };
        return {
          v1: await outcome(v1.client.callTool(POLL, undefined, timeout)),
          v2: await outcome(v2.client.callTool(POLL, timeout)),
        };
      } finally {
        await Promise.all([v1.close(), v2.close()]);
      }
    },
  );
  expect(direct).toEqual({
    v1: { ok: { content: [{ type: 'text', text: 'polled 2' }] } },
    v2: { ok: { content: [{ type: 'text', text: 'polled 2' }] } },
  });
  expect(recorded).toEqual(direct);
  expect(replayed).toEqual(direct);
}, 60_000);
