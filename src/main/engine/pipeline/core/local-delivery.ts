import type { ServerResponse } from 'node:http';
import type { JsonRpcResponse } from '../../../../shared/jsonrpc.js';
import { sendJson, sendMessages } from '../../http/sse.js';
import type { Planned, Post, Stage } from './contract.js';
import { waits } from './chain.js';
import type { LiveExchange } from './exchange.js';
import type { Session } from './session.js';

/** A request answered here (the rules, the proxy itself, a cassette hit in a batch), with how its answer goes. */
export interface HereAnswer {
  exchange: LiveExchange;
  delayMs: number;
  /** the HTTP status of a protocol-level answer (a refusal), when not 200 */
  status?: number;
}

const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The requests of a POST planned to be answered here, in order. */
export function hereAnswers(planned: readonly Planned[]): HereAnswer[] {
  const here: HereAnswer[] = [];
  for (const { exchange, plan } of planned) {
    if (plan.answer === 'upstream') continue;
    here.push({
      exchange,
      delayMs: plan.answer === 'rule' ? plan.delayMs : 0,
      status: plan.answer === 'local' ? plan.status : undefined,
    });
  }
  return here;
}

/** Waits out simulated latency (override delay_s) and the holding hooks; returns the answers in order. */
export async function settle(
  stage: Stage,
  here: HereAnswer[],
  session: Session | undefined,
  res: ServerResponse,
): Promise<JsonRpcResponse[]> {
  let longest = 0;
  let holding = false;
  for (const h of here) {
    if (h.delayMs > longest) longest = h.delayMs;
    if (waits(h.exchange.delivery.need)) holding = true;
  }
  if (longest > 0) await delay(longest);
  if (holding) await Promise.all(here.map((h) => stage.hooks.respond(h.exchange, session, res)));
  return here.map((h) => h.exchange.response as JsonRpcResponse);
}

/**
 * Delivers a POST answered entirely here (rules, the proxy itself, cassette hits of a batch): each answer waits for
 * its rule's delay and the hooks that hold it; a lone protocol-level answer keeps its HTTP status; an initialize
 * answered here opens the client's session. A POST of notifications and replies only gets 202.
 */
export async function deliverHere(post: Post): Promise<void> {
  const { stage, res, session } = post;
  const here = hereAnswers(post.planned);
  if (here.length === 0) return void res.writeHead(202).end(); // notifications and replies need no answer
  const answers = await settle(stage, here, session, res);
  const headers = post.init ? post.sessions.initializedHere(post.init, session, false) : {};
  const batch = Array.isArray(post.parsed);
  const status = here.length === 1 && !batch ? here[0].status : undefined;
  if (status !== undefined && status !== 200) sendJson(res, status, answers[0], headers);
  else sendMessages(res, post.head.accept, batch ? answers : answers[0], headers);
  for (const { exchange } of here) void stage.hooks.finish(exchange, session);
}
