import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** How long after the last notification or request an answer may go out, for the client to have read them first. */
const READ_FIRST_MS = 50;

/**
 * A client's messages written in order, where an answer does not share a read with the messages just before it
 * (issue 21 item 8). The v1 SDK client handles a notification a microtask after reading it but an answer at once, and
 * the answer ends its request's progress handler: progress it reads in the same chunk as the answer is dropped — on a
 * stdio pipe and on a legacy SSE stream alike, which back-to-back writes (a replay with `--replay-timing none`, a fast
 * server) made the rule. So an answer that follows a notification or a request written less than READ_FIRST_MS ago
 * waits out the rest of that time and one turn of the event loop (a reader in this process reads in between); an
 * answer after a pause, or after another answer, goes at once.
 */
export function readFirst(
  send: (message: JSONRPCMessage) => Promise<void>,
): (message: JSONRPCMessage) => Promise<void> {
  let queue: Promise<void> = Promise.resolve();
  /** when the last notification or request was written (0: the last message written was an answer) */
  let otherWrittenAt = 0;
  return (message) => {
    const answer = !('method' in message);
    const sent = queue.then(async () => {
      const wait = answer && otherWrittenAt > 0 ? otherWrittenAt + READ_FIRST_MS - performance.now() : 0;
      if (wait > 0) {
        await sleep(wait);
        await nextTurn();
      }
      await send(message);
      otherWrittenAt = answer ? 0 : performance.now();
    });
    queue = sent.catch(() => {});
    return sent;
  };
}
