import type { IncomingMessage } from 'node:http';

const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]', '::1'];
const WILDCARD_HOSTS = new Set(['0.0.0.0', '::', '']);

export interface GuardOptions {
  /** the address the server listens on */
  host: string;
  /** extra host names accepted in the Host header (e.g. a LAN name when listening on 0.0.0.0) */
  allowedHosts?: string[];
  /**
   * browser origins given leave to call this server (a browser-based MCP client), e.g. "http://localhost:6274";
   * answered with CORS headers. A function is read on every request (an origin known only later: the UI's).
   */
  allowedOrigins?: readonly string[] | (() => readonly string[]);
  /** a browser Origin equal to `http://<Host>` passes: the server's own pages (the browser UI; a proxy serves none) */
  ownOrigin?: boolean;
  /**
   * a browser Origin that is this server's own loopback origin passes (isOwnLoopbackOrigin): its own origin, as the
   * MCP conformance suite's DNS-rebinding check sends it. A page of another port or host is still refused.
   */
  ownLoopbackOrigin?: boolean;
  /** an origin one route admits besides, e.g. the `null` origin of the UI's hand-off file on its POST */
  admits?: (origin: string, req: IncomingMessage) => boolean;
}

/** why a request is refused (403), or that it passes, and whether its browser Origin gets CORS headers */
export type GuardVerdict = { refused: string } | { refused: null; cors: boolean };

/** RFC 9110 Host: uri-host [ ":" port ], where uri-host is an IP literal in brackets or a name/IPv4 without ':' */
const HOST_HEADER = /^(\[[0-9a-f:.]+\]|[a-z0-9._~!$&'()*+,;=%-]+)(?::\d{0,5})?$/i;

/** "[::1]:8080" → "[::1]", "localhost:80" → "localhost"; undefined for anything malformed ("[::1]evil.example") */
function hostnameOf(hostHeader: string): string | undefined {
  const m = HOST_HEADER.exec(hostHeader);
  return m ? m[1].toLowerCase() : undefined;
}

/** an origin as browsers serialise it ("HTTP://LocalHost:80/" → "http://localhost"); other text lower-cased as is */
function normalOrigin(origin: string): string {
  try {
    const url = new URL(origin);
    if (url.protocol === 'http:' || url.protocol === 'https:') return url.origin;
  } catch {
    // "null", or not a URL: compared as written
  }
  return origin.toLowerCase();
}

/** the loopback literal that names the local address a request arrived on: 127.0.0.1 for IPv4, [::1] for IPv6 */
function loopbackLiteralOf(localAddress: string | undefined): string | undefined {
  const address = (localAddress ?? '').replace(/^::ffff:/, '');
  if (address === '::1') return '[::1]';
  if (address.startsWith('127.')) return '127.0.0.1';
  return undefined;
}

/**
 * Is the (normalised) Origin this server's own: http, the port the request arrived on, and a loopback name of the
 * address it arrived on — its literal (only what listens there serves a page of it), or `localhost` when the request
 * too came by `localhost` (same origin: had the page come from another process on the other address family, so
 * would the request). Safe against DNS rebinding: a rebinding page's origin is its own site's name
 * (attacker.example:port), never a loopback one; a page of another loopback port has another port.
 */
function isOwnLoopbackOrigin(origin: string, req: IncomingMessage, hostName: string): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  const port = url.port === '' ? 80 : Number(url.port);
  if (url.protocol !== 'http:' || port !== req.socket.localPort) return false;
  if (url.hostname === 'localhost') return hostName === 'localhost';
  return url.hostname === loopbackLiteralOf(req.socket.localAddress);
}

/** A browser page of another site sends this on requests that carry no Origin (no-cors GETs, navigations). */
const OTHER_SITE = new Set(['cross-site', 'same-site']);

/**
 * DNS-rebinding and cross-site protection, as the MCP spec requires of local servers: the Host header must name this
 * machine, and a request from a browser page (it carries Origin, or Sec-Fetch-Site of another site) is refused unless
 * its origin was given leave: an allowed origin, the server's own (ownOrigin), or one a route admits. Requests with
 * no Origin — agents, SDK clients, curl — are not a browser page's and pass. Any other loopback port is *not* this
 * server: a page there (a dev server, an npm package's server) is as foreign as any web site.
 */
export function createGuard(options: GuardOptions): (req: IncomingMessage) => GuardVerdict {
  const hosts = new Set([...LOOPBACK_NAMES, ...(options.allowedHosts ?? []).map((h) => h.toLowerCase())]);
  if (!WILDCARD_HOSTS.has(options.host))
    hosts.add(options.host.includes(':') ? `[${options.host}]` : options.host.toLowerCase());
  const anyHost = WILDCARD_HOSTS.has(options.host) && !options.allowedHosts?.length;
  const listed = options.allowedOrigins;
  const allowed: () => readonly string[] = typeof listed === 'function' ? listed : () => listed ?? [];

  return (req) => {
    const host = req.headers.host;
    if (!host) return { refused: 'missing Host header' };
    const name = hostnameOf(host);
    if (name === undefined) return { refused: `Host "${host}" is malformed` };
    if (!anyHost && !hosts.has(name)) return { refused: `Host "${host}" is not allowed` };
    const origin = req.headers.origin;
    if (origin === undefined) {
      const site = String(req.headers['sec-fetch-site'] ?? '');
      return OTHER_SITE.has(site)
        ? { refused: `a page of another site (Sec-Fetch-Site: ${site}) may not call this server` }
        : { refused: null, cors: false };
    }
    const normal = normalOrigin(origin);
    if (allowed().some((o) => normalOrigin(o) === normal)) return { refused: null, cors: true };
    if (options.ownOrigin && normal === normalOrigin(`http://${host}`)) return { refused: null, cors: false };
    if (options.ownLoopbackOrigin && isOwnLoopbackOrigin(normal, req, name)) return { refused: null, cors: true };
    if (options.admits?.(origin, req)) return { refused: null, cors: false };
    return { refused: `Origin "${origin}" is not allowed (give it leave with --allowed-origin)` };
  };
}
