import type { IncomingMessage } from 'node:http';

/**
 * Back-off for wrong credentials (serve's API token and agent session tokens). A failed attempt is answered after a
 * delay that doubles with each failure from the same address (the first few are free: a typo costs nothing); once
 * too many answers are being held back for that address, further requests are refused with 429 *before* their
 * credential is checked, so concurrency cannot buy more guesses. Right credentials are never delayed. Failures are
 * forgotten after a quiet period.
 *
 * On loopback every client shares one address: a local attacker hammering wrong tokens slows the other local
 * clients' requests down only while it keeps at it (their right tokens still pass unless the 429 gate is closed).
 */
export interface ThrottleOptions {
  /** failures answered at once before delays start */
  free?: number;
  /** the first delay; doubles per failure */
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** answers held back at once per address, beyond which requests get 429 unchecked */
  maxHeld?: number;
  /** a failure is forgotten after this long without another */
  forgetAfterMs?: number;
}

interface Failures {
  failures: number;
  last: number;
  held: number;
}

export class AuthThrottle {
  private readonly byAddress = new Map<string, Failures>();
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
    const address = req.socket.remoteAddress ?? '?';
    const now = Date.now();
    let r = this.byAddress.get(address);
    if (r && r.held === 0 && now - r.last > this.forgetAfterMs) r = undefined;
    if (!r) {
      if (this.byAddress.size > 10_000) this.prune(now);
      r = { failures: 0, last: now, held: 0 };
      this.byAddress.set(address, r);
    }
    return r;
  }

  /** Seconds to wait when this address may not even try now (too many failures held back), else undefined. */
  refused(req: IncomingMessage): number | undefined {
    const r = this.byAddress.get(req.socket.remoteAddress ?? '?');
    return r && r.held >= this.maxHeld ? Math.ceil(this.maxDelayMs / 1000) : undefined;
  }

  /** Records a failure; resolves when its answer may be sent. */
  async failed(req: IncomingMessage): Promise<void> {
    const r = this.record(req);
    r.failures++;
    r.last = Date.now();
    const over = r.failures - this.free;
    if (over <= 0) return;
    const delay = Math.min(this.maxDelayMs, this.baseDelayMs * 2 ** Math.min(over - 1, 30));
    r.held++;
    try {
      await new Promise((done) => setTimeout(done, delay));
    } finally {
      r.held--;
      r.last = Date.now();
    }
  }

  private prune(now: number): void {
    for (const [address, r] of this.byAddress) if (r.held === 0 && now - r.last > this.forgetAfterMs) this.byAddress.delete(address);
  }
}
