import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** 256 random bits, URL- and header-safe. */
export const newToken = (): string => randomBytes(32).toString('base64url');

const VALID = /^[A-Za-z0-9_-]{22,512}$/;

/**
 * A credential kept in the user data folder, readable by its owner only (0600), so a restarted `serve` or `ui`
 * keeps its token (an open browser tab re-authenticates; scripts keep working). Made on first use; a file that is
 * unreadable, malformed or readable by others is replaced by a new token.
 */
export function persistentToken(file: string): { token: string; created: boolean } {
  try {
    const info = statSync(file);
    const text = readFileSync(file, 'utf8').trim();
    if (VALID.test(text) && (process.platform === 'win32' || (info.mode & 0o077) === 0))
      return { token: text, created: false };
  } catch {
    // missing or unreadable: make one
  }
  const token = newToken();
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const temp = join(dirname(file), `.rewind-tmp-${process.pid}-${randomBytes(6).toString('hex')}`);
  writeFileSync(temp, `${token}\n`, { mode: 0o600 });
  chmodSync(temp, 0o600); // the umask may have widened it
  renameSync(temp, file);
  return { token, created: true };
}
