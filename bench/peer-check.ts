/**
 * Is a bench peer answering correctly? Before and after its rounds, each peer gets the bench's own tools/call
 * requests (one at a time, then all at once at the bench's concurrency) and every answer is read in full: HTTP 200,
 * a JSON or SSE body holding the JSON-RPC response of that request's id, with a tool result (content array). A
 * ratio over a peer that failed a check, or erred during its rounds, is void (report.ts prints why instead).
 */
import type { LoadClient } from './load.js';

export interface CheckResult {
  sent: number;
  failed: number;
  /** the first few failures, in words */
  reasons: string[];
}

/** The JSON-RPC messages of an answer body: one JSON value, or the `data:` lines of an SSE stream. */
function messagesOf(contentType: string, text: string): unknown[] {
  if (contentType.includes('text/event-stream')) {
    const events = text.split(/\r?\n\r?\n/);
    const out: unknown[] = [];
    for (const event of events) {
      const data = event
        .split(/\r?\n/)
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).trimStart())
        .join('\n');
      if (data) out.push(JSON.parse(data));
    }
    return out;
  }
  const parsed: unknown = JSON.parse(text);
  return Array.isArray(parsed) ? parsed : [parsed];
}

/** Why this answer is not the tool result of request `id`; undefined when it is. */
export function answerProblem(
  id: unknown,
  answer: { status: number; contentType: string; text: string },
): string | undefined {
  if (answer.status !== 200) return `HTTP ${answer.status}: ${answer.text.slice(0, 160)}`;
  let messages: unknown[];
  try {
    messages = messagesOf(answer.contentType, answer.text);
  } catch {
    return `unreadable ${answer.contentType || 'body'}: ${answer.text.slice(0, 160)}`;
  }
  const response = messages.find(
    (m): m is { id: unknown; result?: { content?: unknown }; error?: { message?: string } } =>
      typeof m === 'object' && m !== null && (m as { id?: unknown }).id === id && !('method' in m),
  );
  if (!response) return `no response with id ${JSON.stringify(id)} in ${answer.text.slice(0, 160)}`;
  if (response.error) return `JSON-RPC error: ${response.error.message ?? JSON.stringify(response.error)}`;
  if (!Array.isArray(response.result?.content)) return `result without content: ${answer.text.slice(0, 160)}`;
  return undefined;
}

/** Sends `bodies` (JSON-RPC requests with distinct ids): one by one, then `concurrency` at once; checks every answer. */
export async function checkPeer(client: LoadClient, bodies: Buffer[], concurrency: number): Promise<CheckResult> {
  const result: CheckResult = { sent: 0, failed: 0, reasons: [] };
  const one = async (body: Buffer): Promise<void> => {
    const { id } = JSON.parse(body.toString('utf8')) as { id: unknown };
    result.sent++;
    const problem = await client.answer(body).then(
      (answer) => answerProblem(id, answer),
      (error: Error) => `transport: ${error.message}`,
    );
    if (problem === undefined) return;
    result.failed++;
    if (result.reasons.length < 3) result.reasons.push(problem);
  };
  for (const body of bodies.slice(0, 4)) await one(body);
  await Promise.all(Array.from({ length: concurrency }, (_, i) => one(bodies[i % bodies.length])));
  return result;
}

/** Why a peer's figures cannot be trusted (failed checks, errors in its rounds), or undefined when they can. */
export function voidReason(name: string, checks: CheckResult[], roundErrors: number): string | undefined {
  const failed = checks.reduce((n, c) => n + c.failed, 0);
  const sent = checks.reduce((n, c) => n + c.sent, 0);
  const why: string[] = [];
  if (failed) why.push(`${failed} of ${sent} checked answers wrong (${checks.flatMap((c) => c.reasons)[0]})`);
  if (roundErrors) why.push(`${roundErrors} requests failed during its rounds`);
  return why.length ? `${name}: ${why.join('; ')}` : undefined;
}
