/**
 * `--stdio` in front of a stdio server (`--stdio --attach -- <cmd>`, `--stdio --upstream-command …`, and `--stdio
 * --replay`): the client's lines from stdin go through the message-level pipeline (pipeline/message-planner.ts) in
 * this process to the child's stdin, and the child's lines back to stdout — no HTTP between them. With nobody
 * watching (no hook needs anything: proxy-only, or attached with no app, no rule and no recording) the lines pass
 * as they came both ways: the server's unread, the client's (small requests) only checked as JSON, so a malformed one
 * gets its JSON-RPC error; the client's initialize is always planned (the session keeps its params, an attached
 * proxy its name). Stdout carries JSON-RPC only; logs go to stderr.
 *
 * When stdin ends, what is still being answered gets a few seconds, then the child is stopped (stdin closed,
 * SIGTERM, SIGKILL) and `done` resolves.
 */
import type { Readable, Writable } from 'node:stream';
import type { EventEmitter } from 'node:events';
import { ErrorCode, errorResponse, invalidMessageReason, type JsonRpcMessage } from '../../shared/jsonrpc.js';
import { MODE_TRAITS, type Mode } from '../../shared/modes.js';
import type { ExchangeEvent } from '../../shared/traffic.js';
import type { CassetteStore } from './cassette/store.js';
import { createParts, type EndpointOptions } from './pipeline-parts.js';
import { silent, type Log } from './log.js';
import type { Breakpoints } from './pipeline/breakpoints/breakpoints.js';
import { HookChain } from './pipeline/core/chain.js';
import type { ExchangeDetail } from './pipeline/core/contract.js';
import type { LiveExchange } from './pipeline/core/exchange.js';
import { MessagePlanner } from './pipeline/message-planner.js';
import type { RecordFailures } from './pipeline/record/recorder.js';
import type { ToolsMemory } from './pipeline/core/rule-hook.js';
import { SessionRegistry } from './pipeline/core/session.js';
import type { RuleSet } from './rules/rule-set.js';
import { ChildUpstream, type ChildSpec } from './transports/child-upstream.js';
import type { LaunchedChild } from './transports/stdio-child.js';
import { LineReader } from './transports/lines.js';

export interface StdioProxyOptions extends EndpointOptions {
  /** the stdio server behind (unused in a mode that does not forward) */
  command?: ChildSpec;
  /** that server, spawned already (the CLI starts it before it loads the pipeline): read from the start */
  launched?: LaunchedChild;
  stdin: Readable;
  stdout: Writable;
  /** the child's stderr and fate ('warn'), the pipe's own notes ('info') */
  upstreamLog?: Log;
  /** sees each message of the client that is read (an attached proxy reads the client's name from initialize) */
  onClientMessage?(message: JsonRpcMessage): void;
}

/** What an attached proxy and the CLI use of it (the same names as RunningProxy's). */
export interface StdioProxy {
  readonly mode: Mode;
  readonly store?: CassetteStore;
  readonly rules?: RuleSet;
  readonly memory: ToolsMemory;
  readonly breakpoints: Breakpoints;
  readonly events: EventEmitter<{ exchange: [ExchangeEvent] }>;
  readonly recordFailures: RecordFailures;
  /** the client is told of changes of the proxy's own (tools/list_changed) */
  readonly endpoint: { notifyAll(method: string, params?: Record<string, unknown>): number };
  /** resolves when stdin ended (or stdout broke) and what was in flight was answered or given up */
  readonly done: Promise<void>;
  /** starts reading stdin (once what must see the client's first message listens: an attached proxy's link) */
  listen(): void;
  flush(): Promise<void>;
  close(): Promise<void>;
}

/** How long answers to requests already sent may still arrive after stdin ended. */
const DRAIN_MS = 5_000;

export async function startStdioProxy(options: StdioProxyOptions): Promise<StdioProxy> {
  const log = options.onLog ?? silent;
  const forwards = MODE_TRAITS[options.mode].forwards && options.command !== undefined;
  const wire: { child?: ChildUpstream; planner?: MessagePlanner } = {};
  const parts = await createParts(options, () => wire.child !== undefined);
  await parts.store?.ready;
  // the replayer is the planner's cassette here: its HTTP hook (follow-ups pushed on GET streams) has no stream to use
  const chain = new HookChain(
    parts.hooks.filter((h) => h !== parts.replayer),
    log,
  );
  const out = stdoutOf(options.stdout);
  const passes: Passes = { requests: 0, answers: 0 };
  const child =
    forwards && options.command
      ? childOf(options.command, () => wire.planner!, { chain, out, passes, log: options.upstreamLog ?? log })
      : undefined;
  wire.child = child;
  const planner = new MessagePlanner({
    hooks: chain,
    rules: parts.ruleHook,
    cassette: parts.replayer,
    upstream: child,
    session: new SessionRegistry().create(null),
    serverInfo: options.serverInfo ?? { name: 'mcp-rewind', version: '0' },
    toClient: (message, raw) => void out.line(raw ?? JSON.stringify(message), !('method' in message)),
    onError: (error) => log(`stdio: ${error.message}`, 'warn'),
    detail: (exchange, raw) => stdioDetail(exchange, raw, child?.label ?? 'stdio'),
    observeLater: true,
  });
  wire.planner = planner;
  if (options.launched) {
    if (child) child.adopt(options.launched);
    else options.launched.child.kill(); // a mode that does not forward: never its server
  }
  const client = readClient(options, { planner, child, chain, out, passes });
  const close = async (): Promise<void> => {
    parts.breakpoints.releaseAll();
    await planner.drained();
    await parts.recorder?.flush();
    await child?.close();
    parts.store?.close();
  };
  const done = client.ended.then(async () => {
    await client.drain(DRAIN_MS);
    await close();
  });
  return {
    mode: options.mode,
    store: parts.store,
    rules: parts.rules,
    memory: parts.memory,
    breakpoints: parts.breakpoints,
    events: parts.events.emitter,
    recordFailures: parts.recorder?.failures ?? { count: 0 },
    endpoint: {
      notifyAll: (method, params) => {
        planner.notify(method, params);
        return 1;
      },
    },
    done,
    listen: client.listen,
    flush: async () => {
      await parts.recorder?.flush();
    },
    close,
  };
}

/**
 * Lines passed unparsed: requests sent (a line with "method" and "id"), and answers back (a line without "method"):
 * a guess, good enough for the drain at the end of stdin (a wrong one only waits longer, at most DRAIN_MS).
 */
interface Passes {
  requests: number;
  answers: number;
}

/** The server behind: its lines pass to stdout as they came while nobody needs them read, else to the planner. */
function childOf(
  command: ChildSpec,
  planner: () => MessagePlanner,
  pipe: { chain: HookChain; out: Stdout; passes: Passes; log: Log },
): ChildUpstream {
  return new ChildUpstream(command, {
    passed: (line) => {
      if (!planner().idle || pipe.chain.observesStreams()) return false;
      if (!line.includes('"method"')) pipe.passes.answers++;
      return pipe.out.line(line);
    },
    message: (message, raw) => planner().fromUpstream(message, raw),
    gone: (reason) => planner().upstreamGone(reason),
    log: pipe.log,
  });
}

interface Stdout {
  /**
   * writes one line (`answer`: it is an answer, not a notification or a request); true: it is always taken (a client
   * that stopped reading loses what it did not read)
   */
  line(text: string, answer?: boolean): boolean;
  broken: Promise<void>;
}

/** How long after a notification or request an answer waits, for the client to have read them first (read-first.ts). */
const READ_FIRST_MS = 50;

/**
 * Stdout, line by line, in order — where an answer does not share a read with the messages just before it (the v1
 * SDK client drops progress it reads in the same chunk as the answer: transports/read-first.ts, issue 21 item 8): an
 * answer less than READ_FIRST_MS after a notification or request waits out the rest of that time and one turn.
 */
function stdoutOf(stdout: Writable): Stdout {
  let broke!: () => void;
  const broken = new Promise<void>((resolve) => (broke = resolve));
  stdout.on('error', () => broke()); // the client went away without reading: nothing more can be delivered
  let otherAt = 0;
  let queue: Promise<void> | undefined;
  const write = (text: string, answer: boolean): void => {
    stdout.write(`${text}\n`);
    otherAt = answer ? 0 : performance.now();
  };
  const later = async (text: string, answer: boolean): Promise<void> => {
    const wait = answer && otherAt > 0 ? otherAt + READ_FIRST_MS - performance.now() : 0;
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    if (wait > 0) await new Promise((resolve) => setImmediate(resolve));
    write(text, answer);
  };
  return {
    line: (text, answer = !text.includes('"method"')) => {
      const waits = answer && otherAt > 0 && performance.now() - otherAt < READ_FIRST_MS;
      if (!queue && !waits) {
        write(text, answer);
        return true;
      }
      const step = (queue ?? Promise.resolve()).then(() => later(text, answer));
      queue = step;
      void step.then(() => {
        if (queue === step) queue = undefined;
      });
      return true;
    },
    broken,
  };
}

/**
 * The client's side: stdin line by line — passed to the child unparsed when nobody needs it read, else parsed and
 * planned; a line that is not JSON-RPC is answered with the JSON-RPC error for it (the process stays up).
 */
function readClient(
  options: StdioProxyOptions,
  pipe: { planner: MessagePlanner; child?: ChildUpstream; chain: HookChain; out: Stdout; passes: Passes },
): { listen(): void; ended: Promise<void>; drain(ms: number): Promise<void> } {
  const { planner, child, chain, out, passes: counts } = pipe;
  const log = options.upstreamLog ?? options.onLog ?? silent;
  const fail = (error: Error): void => log(`stdio: ${error.message}`, 'warn');
  const onLine = (line: string): void => {
    const text = line.trim();
    if (text === '') return;
    const messages = parse(text, out); // a small request is checked at once: a malformed one gets its JSON-RPC error
    // nobody watching: the line goes as it came (initialize aside: the session keeps its params)
    const [only] = messages.list;
    const passes = child?.ready && !chain.active() && planner.idle && !messages.batch && only !== undefined;
    if (passes && !('method' in only && only.method === 'initialize') && child!.pass(text)) {
      if ('method' in only && 'id' in only) counts.requests++;
      return;
    }
    for (const message of messages.list) {
      options.onClientMessage?.(message);
      planner.send(message).catch(fail);
    }
  };
  const reader = new LineReader(onLine, (bytes) => {
    out.line(JSON.stringify(errorResponse(null, ErrorCode.InvalidRequest, `a line of ${bytes} bytes is too long`)));
  });
  const ended = Promise.race([
    new Promise<void>((resolve) => {
      options.stdin.once('end', resolve);
      options.stdin.once('close', resolve);
    }),
    out.broken,
  ]);
  return {
    listen: () => void options.stdin.on('data', (chunk: Buffer) => reader.push(chunk)),
    ended,
    async drain(ms) {
      const until = Date.now() + ms;
      const waiting = (): boolean => !planner.idle || counts.requests > counts.answers;
      while (Date.now() < until && waiting()) await new Promise((resolve) => setTimeout(resolve, 10));
    },
  };
}

/** The messages of a client's line (`batch`: it was an array), those that are JSON-RPC; the others' errors were written. */
function parse(text: string, out: Stdout): { list: JsonRpcMessage[]; batch?: unknown[] } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    out.line(JSON.stringify(errorResponse(null, ErrorCode.ParseError, `Parse error: ${(error as Error).message}`)));
    return { list: [] };
  }
  const batch = Array.isArray(value) ? value : undefined;
  const list: JsonRpcMessage[] = [];
  for (const m of batch ?? [value]) {
    const reason = invalidMessageReason(m);
    if (reason === null) list.push(m as JsonRpcMessage);
    else {
      const id = (m as { id?: unknown } | null)?.id;
      const answerTo = typeof id === 'string' || typeof id === 'number' ? id : null;
      out.line(JSON.stringify(errorResponse(answerTo, ErrorCode.InvalidRequest, `Invalid Request: ${reason}`)));
    }
  }
  return { list, batch };
}

/** The cassette's debug files of a stdio exchange: its JSON lines are the raw bodies (no HTTP status or headers). */
function stdioDetail(exchange: LiveExchange, raw: string | undefined, label: string): ExchangeDetail {
  return {
    request: { method: 'STDIO', url: `stdio:${label}`, headers: {}, body: exchange.request },
    responseBody: raw ?? JSON.stringify(exchange.upstreamResponse ?? exchange.response),
    responseHead: { status: 200, headers: { 'content-type': 'application/json' } },
  };
}
