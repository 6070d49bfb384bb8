import { terminalSafe } from '../../shared/terminal-text.js';

/**
 * The process-level safety of every long-running command (the proxy, `serve`, `ui`):
 * - a closed stdout/stderr (`mcp-rewind … 2>&1 | head`) must not crash or loop: a write to a pipe whose reader is
 *   gone emits 'error' (EPIPE); unhandled, that became an uncaughtException whose handler logged again, to the same
 *   closed pipe — a 100% CPU loop that ignored SIGTERM. Here the error is swallowed and the stream goes quiet.
 * - the uncaughtException handler never re-enters itself;
 * - SIGINT/SIGTERM always end the process: a graceful close gets a few seconds, a second signal ends it at once.
 */

const quiet = new WeakSet<NodeJS.WriteStream>();
let guarded = false;

/** Makes writes to a closed stdout/stderr harmless (idempotent; call first thing). */
export function guardStdStreams(): void {
  if (guarded) return;
  guarded = true;
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', () => void quiet.add(stream)); // EPIPE / EIO: nobody reads us any more
  }
}

/** Writes text to a standard stream unless it is closed, its control characters escaped (terminal-text.ts); never throws. */
function print(stream: NodeJS.WriteStream, text: string): void {
  if (quiet.has(stream) || stream.destroyed || !stream.writable) return;
  try {
    stream.write(terminalSafe(text));
  } catch {
    quiet.add(stream);
  }
}

/** Writes a line to stderr (escaped, see print). */
export const writeStderr = (line: string): void => print(process.stderr, `${line}\n`);

/** Writes text to stdout (escaped, see print): banners, reports — never the MCP messages of --stdio. */
export const writeStdout = (text: string): void => print(process.stdout, text);

/** How long a graceful shutdown may take before the process ends anyway. */
export const SHUTDOWN_GRACE_MS = 3_000;

/**
 * Keeps the process serving until SIGINT/SIGTERM, then runs `close` (at most SHUTDOWN_GRACE_MS) and exits with
 * `status()` (0 unless the run says otherwise: a record run in which something could not be recorded, a strict
 * replay that missed). A bug in one exchange is reported (`log`) and does not stop the others.
 */
export function stayUp(
  close: () => Promise<void>,
  log: (line: string) => void = writeStderr,
  status: () => number = () => 0,
): void {
  guardStdStreams();
  let stopping = false;
  const stop = (): void => {
    if (stopping) process.exit(status()); // a second signal: now
    stopping = true;
    setTimeout(() => process.exit(status()), SHUTDOWN_GRACE_MS);
    void close()
      .catch((error: Error) => log(`internal error on shutdown: ${error.stack ?? error.message}`))
      .finally(() => process.exit(status()));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  let reporting = false;
  const report = (what: unknown): void => {
    if (reporting) return; // the report itself failed: never loop
    reporting = true;
    try {
      log(`internal error: ${String((what as Error)?.stack ?? (what as Error)?.message ?? what)}`);
    } catch {
      // nothing left to tell it to
    } finally {
      reporting = false;
    }
  };
  process.on('uncaughtException', report);
  process.on('unhandledRejection', report);
}
