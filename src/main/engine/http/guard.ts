import type { IncomingMessage } from 'node:http';

const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]', '::1'];
const WILDCARD_HOSTS = new Set(['0.0.0.0', '::', '']);

export interface GuardOptions {
  /** the address the server listens on */
  host: string;
  /** extra host names accepted in the Host header (e.g. a LAN name when listening on 0.0.0.0) */
  allowedHosts?: string[];
  /** extra origins accepted from browsers, e.g. "http://my-inspector.test:8080" */
  allowedOrigins?: string[];
}

/** RFC 9110 Host: uri-host [ ":" port ], where uri-host is an IP literal in brackets or a name/IPv4 without ':' */
const HOST_HEADER = /^(\[[0-9a-f:.]+\]|[a-z0-9._~!$&'()*+,;=%-]+)(?::\d{0,5})?$/i;

/** "[::1]:8080" → "[::1]", "localhost:80" → "localhost"; undefined for anything malformed ("[::1]evil.example") */
function hostnameOf(hostHeader: string): string | undefined {
  const m = HOST_HEADER.exec(hostHeader);
  return m ? m[1].toLowerCase() : undefined;
}

/**
 * DNS-rebinding and cross-site protection, as the MCP spec requires of local servers:
 * the Host header must name this machine, and a browser's Origin must be a loopback origin (or an allowed one).
 * Returns null when the request may pass, else the reason for a 403.
 */
export function createGuard(options: GuardOptions): (req: IncomingMessage) => string | null {
  const hosts = new Set([...LOOPBACK_NAMES, ...(options.allowedHosts ?? []).map((h) => h.toLowerCase())]);
  if (!WILDCARD_HOSTS.has(options.host)) hosts.add(options.host.includes(':') ? `[${options.host}]` : options.host.toLowerCase());
  const anyHost = WILDCARD_HOSTS.has(options.host) && !options.allowedHosts?.length;
  const origins = new Set((options.allowedOrigins ?? []).map((o) => o.toLowerCase()));

  return (req) => {
    const host = req.headers.host;
    if (!host) return 'missing Host header';
    const name = hostnameOf(host);
    if (name === undefined) return `Host "${host}" is malformed`;
    if (!anyHost && !hosts.has(name)) return `Host "${host}" is not allowed`;
    const origin = req.headers.origin;
    if (origin === undefined) return null; // not a browser request
    if (origins.has(origin.toLowerCase())) return null;
    let url: URL;
    try {
      url = new URL(origin);
    } catch {
      return `Origin "${origin}" is not allowed`;
    }
    if ((url.protocol === 'http:' || url.protocol === 'https:') && (LOOPBACK_NAMES.includes(url.hostname) || hosts.has(url.hostname))) return null;
    return `Origin "${origin}" is not allowed`;
  };
}
