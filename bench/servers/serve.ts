/**
 * Shared plumbing of the bench's child-process servers: announce the URL on stdout (one line `URL <url>`), and exit
 * cleanly (so `--cpu-prof` gets written) on SIGTERM/SIGINT or when the parent goes away (our stdin closes).
 */
export function announce(url: string, close: () => Promise<void>): void {
  process.stdout.write(`URL ${url}\n`);
  let closing = false;
  const stop = (): void => {
    if (closing) return;
    closing = true;
    const force = setTimeout(() => process.exit(0), 2000);
    force.unref();
    void close().finally(() => process.exit(0));
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  process.stdin.on('end', stop);
  process.stdin.on('error', stop);
  process.stdin.resume();
}
