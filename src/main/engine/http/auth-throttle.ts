import type { IncomingMessage } from 'node:http';
import { isIPv6 } from 'node:net';

/**
 * Back-off for wrong credentials (serve's API token and agent session tokens). The credential is always checked
 * first (a constant-time comparison of hashes, no I/O), so a right one is answered at once whatever anyone else is
 * doing; only wrong ones meet the throttle. A wrong one is answered after a delay that doubles with each failure from
 * the same host (the first few are free: a typo costs nothing); the delay holds that request, on its own connection,
 * never another one. Once too many answers are being held back for the host, further wrong ones are answered 429 at
 * once instead, so concurrency buys no more delayed answers than the cap. Failures are forgotten after a quiet period.
 *
 * A host is not an address: every address of 127.0.0.0/8 (and ::1) is the same loopback host, an IPv4-mapped IPv6
 * address is its IPv4 one, and other IPv6 addresses count by their /64 — so rotating source addresses (Linux routes
 * all of 127.0.0.0/8 to lo) buys no fresh budget.
 */
export interface ThrottleOptions {
  /** failures answered at once before delays start */
  free?: number;
  /** the first delay; doubles per failure */
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** answers held back at once per host, beyond which wrong credentials get 429 at once */
  maxHeld?: number;
  /** a failure is forgotten after this long without another */
  forgetAfterMs?: number;
}

interface Failures {
  failures: number;
  last: number;
  held: number;
}

/** The host a connection comes from, as the throttle counts it (see ThrottleOptions). */
export function hostOf(address: string | undefined): string {
  if (!address) return '?';
  const v4 = address.startsWith('::ffff:') && address.includes('.') ? address.slice(7) : address;
  if (v4.startsWith('127.') || v4 === '::1') return 'loopback';
  if (!isIPv6(v4)) return v4;
  return expandIPv6(v4).slice(0, 4).join(':') + '::/64';
}

/** The eight hextets of an IPv6 address (`::` expanded; a zone index dropped). */
function expandIPv6(address: string): string[] {
  const [head, tail = ''] = address.split('%')[0].split('::');
  const left = head ? head.split(':') : [];
  const right = address.includes('::') && tail ? tail.split(':') : [];
  const zeros = address.includes('::') ? Array(8 - left.length - right.length).fill('0') : [];
  return [...left, ...zeros, ...right].map((h) => h.toLowerCase().replace(/^0+(?=.)/, ''));
}

export class AuthThrottle {
  private readonly byHost = new Map<string, Failures>();
  private readonly free: number;
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;
  private readonly maxHeld: number;
  private readonly forgetAfterMs: number;

  constructor(options: ThrottleOptions = {}) {
    this.free = options.free ?? 10;
    this.baseDelayMs = options.baseDelayMs ?? 50;
    this.maxDelayMs = options.maxDelayMs ?? 2_000;
    this.maxHeld = options.maxHeld ?? 16;
    this.forgetAfterMs = options.forgetAfterMs ?? 60_000;
  }

  private record(req: IncomingMessage): Failures {
    const host = hostOf(req.socket.remoteAddress);
    const now = Date.now();
    let r = this.byHost.get(host);
    if (r && r.held === 0 && now - r.last > this.forgetAfterMs) r = undefined;
    if (!r) {
      if (this.byHost.size > 10_000) this.prune(now);
      r = { failures: 0, last: now, held: 0 };
      this.byHost.set(host, r);
    }
    return r;
  }

  /**
   * Records a wrong credential. Resolves when its 401 may be sent — or at once with the seconds a 429 should ask the
   * client to wait, when the host already has as many answers held back as allowed.
   */
  async failed(req: IncomingMessage): Promise<number | undefined> {
    const r = this.record(req);
    r.failures++;
    r.last = Date.now();
    if (r.held >= this.maxHeld) return Math.ceil(this.maxDelayMs / 1000);
    const over = r.failures - this.free;
    if (over <= 0) return undefined;
    const delay = Math.min(this.maxDelayMs, this.baseDelayMs * 2 ** Math.min(over - 1, 30));
    r.held++;
    try {
      await new Promise((done) => setTimeout(done, delay));
    } finally {
      r.held--;
      r.last = Date.now();
    }
    return undefined;
  }

  private prune(now: number): void {
    for (const [host, r] of this.byHost)
      if (r.held === 0 && now - r.last > this.forgetAfterMs) this.byHost.delete(host);
  }
}
