/** The one logger signature of the engine: a line, and whether the user should see it without --verbose. */
export type LogLevel = 'info' | 'warn';
export type Log = (line: string, level: LogLevel) => void;

/** A logger that drops everything (tests, probes). */
export const silent: Log = () => {};

/** The same logger with a prefix on every line (`[proxy name] …`). */
export const prefixed =
  (log: Log, prefix: string): Log =>
  (line, level) =>
    log(`${prefix}${line}`, level);
