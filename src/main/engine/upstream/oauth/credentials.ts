import { chmodSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { parseJson } from '../../../../shared/json-depth.js';
import { hash16 } from '../../fs/hash16.js';
import { writeAtomic } from '../../fs/atomic-write.js';
import { pathInside } from '../../fs/inside-folder.js';

/** What the proxy keeps of one upstream's sign-in, in `<data folder>/oauth/<host>-<hash>.json` (owner-only). */
export interface StoredSignIn {
  /** the upstream's URL, canonical (the resource the tokens are for) */
  upstream: string;
  /** the client registered dynamically (RFC 7591), or given in the app's form (its secret lives here, never in workspace.json) */
  client?: OAuthClientInformationMixed;
  /** the loopback redirect the client was registered with: its port is tried first next time */
  redirectUri?: string;
  /** the tokens, without the OIDC id_token (its name claims are kept as `user`) */
  tokens?: OAuthTokens;
  /** when the tokens arrived (ms), for their expiry */
  obtainedAt?: number;
  /** who signed in, where the authorization server says (an OIDC id_token's name, email or subject) */
  user?: string;
  /** discovery results (metadata documents: no secret), so a refresh needs no new discovery */
  discovery?: OAuthDiscoveryState;
}

/** Credentials the user gave for an upstream (an Authorization header, a URL's user:password@) win over a sign-in. */
export function hasOwnCredentials(url: string, headers: Record<string, string> = {}): boolean {
  const u = new URL(url);
  return (
    u.username !== '' ||
    u.password !== '' ||
    Object.keys(headers).some((name) => name.toLowerCase() === 'authorization')
  );
}

/** The canonical form of an upstream URL: what the store, the registry and the resource indicator key on. */
export function canonicalUpstream(url: string | URL): string {
  const u = new URL(url);
  u.hash = '';
  u.username = '';
  u.password = '';
  return u.href;
}

/**
 * The sign-ins of one data folder: a file per upstream, written atomically and readable by its owner only (0600 in a
 * 0700 folder). Nothing else of mcp-rewind — cassettes, logs, HAR, the timeline, exports — ever holds these values.
 */
export class CredentialStore {
  readonly dir: string;
  /** writes one after another, so the last saved state is the one on disk */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(dataDir: string) {
    this.dir = join(dataDir, 'oauth');
  }

  /** The file name of an upstream's sign-in: its host (readable) and a hash of its URL (unique, safe). */
  fileName(upstream: string | URL): string {
    const canonical = canonicalUpstream(upstream);
    const host = new URL(canonical).host.replace(/[^A-Za-z0-9.-]/g, '_').slice(0, 80);
    return `${host}-${hash16(canonical)}.json`;
  }

  read(upstream: string | URL): StoredSignIn | undefined {
    return this.readFile(this.fileName(upstream));
  }

  /** Every sign-in kept in this folder (`auth status`). */
  list(): StoredSignIn[] {
    let names: string[];
    try {
      names = readdirSync(this.dir).filter((name) => name.endsWith('.json'));
    } catch {
      return [];
    }
    return names.map((name) => this.readFile(name)).filter((s): s is StoredSignIn => s !== undefined);
  }

  write(signIn: StoredSignIn): Promise<void> {
    const kept = { ...signIn, upstream: canonicalUpstream(signIn.upstream) };
    const run = this.queue.then(async () => {
      mkdirSync(this.dir, { recursive: true, mode: 0o700 });
      if (process.platform !== 'win32') chmodSync(this.dir, 0o700);
      await writeAtomic(this.dir, this.fileName(kept.upstream), JSON.stringify(kept, null, 2) + '\n', { mode: 0o600 });
    });
    this.queue = run.catch(() => {});
    return run;
  }

  remove(upstream: string | URL): Promise<boolean> {
    const run = this.queue.then(() => {
      const file = pathInside(this.dir, this.fileName(upstream));
      const existed = statSync(file, { throwIfNoEntry: false }) !== undefined;
      rmSync(file, { force: true });
      return existed;
    });
    this.queue = run.catch(() => {});
    return run;
  }

  private readFile(name: string): StoredSignIn | undefined {
    try {
      const parsed = parseJson(readFileSync(pathInside(this.dir, name), 'utf8')) as StoredSignIn;
      return typeof parsed?.upstream === 'string' ? parsed : undefined;
    } catch {
      return undefined; // missing or unreadable: no sign-in
    }
  }
}
