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

function hostnameOf(hostHeader: string): string {
  // "[::1]:8080" → "[::1]", "localhost:80" → "localhost"
  if (hostHeader.startsWith('[')) return hostHeader.slice(0, hostHeader.indexOf(']') + 1);
  const colon = hostHeader.indexOf(':');
  return (colon >= 0 ? hostHeader.slice(0, colon) : hostHeader).toLowerCase();
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
    if (!anyHost && !hosts.has(hostnameOf(host))) return `Host "${host}" is not allowed`;
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
