import { hash } from 'node:crypto';

/**
 * First 16 hex characters of the SHA-256 of a string (mcp-rewind's hash width): the hash in cassette keys and file
 * names, in sign-in file names and in test cassette names.
 */
export function hash16(text: string): string {
  return hash('sha256', text, 'hex').slice(0, 16);
}
