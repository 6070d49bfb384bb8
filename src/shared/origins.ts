/**
 * A browser origin as a user gives it leave to call a proxy (`--allowed-origin`, a proxy's "Browser origins"):
 * http(s), a host, maybe a port, nothing after ("http://localhost:6274"; a trailing slash is tolerated).
 */
export function isBrowserOrigin(text: string): boolean {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return false;
  }
  return (
    (url.protocol === 'http:' || url.protocol === 'https:') &&
    url.origin.toLowerCase() === text.replace(/\/$/, '').toLowerCase()
  );
}

export const BROWSER_ORIGIN_HINT = 'a browser origin: http(s)://host[:port], no path (e.g. http://localhost:6274)';
