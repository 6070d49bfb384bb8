import type { IncomingMessage } from 'node:http';
import type { Upstream } from '../core/contract.js';

const PROGRESS = Buffer.from('"notifications/progress"');

/**
 * For an SSE answer relayed unparsed (nobody reads its messages): each progress notification in it restarts the
 * call's per-call timeout, as the tapped relay does for the messages it reads. The bytes are searched, not parsed (the
 * unparsed relay stays cheap); the chunk boundary is searched too, so a method name split across chunks still counts.
 */
export function watchProgress(upstream: Upstream, upRes: IncomingMessage): void {
  if (!upstream.progressed || !upRes.headers['content-type']?.includes('text/event-stream')) return;
  let tail = Buffer.alloc(0);
  upRes.on('data', (chunk: Buffer) => {
    const seam = tail.length ? Buffer.concat([tail, chunk.subarray(0, PROGRESS.length - 1)]) : undefined;
    if (chunk.includes(PROGRESS) || seam?.includes(PROGRESS)) upstream.progressed?.(upRes);
    tail = Buffer.from(chunk.subarray(Math.max(0, chunk.length - (PROGRESS.length - 1))));
  });
}
