import { join } from 'node:path';
import { hash16 } from '../main/engine/fs/hash16.js';

/** Longest readable part of a cassette's folder name (the hash keeps it unique). */
const SLUG_LENGTH = 80;

/**
 * The folder name of a test's cassette, from the test's full name: its letters, digits, `.`, `_` and `-` (every other
 * run of characters becomes one `-`, at most 80 kept), then `-` and 8 hex of the name's SHA-256 — safe on every OS,
 * stable while the name is, and distinct for distinct names (`a b` and `a-b` differ).
 */
export function cassetteName(testName: string): string {
  const slug =
    testName
      .normalize('NFKD')
      .replace(/[^A-Za-z0-9._-]+/g, '-')
      .replace(/^[-.]+|-+$/g, '')
      .slice(0, SLUG_LENGTH)
      .replace(/[-.]+$/, '') || 'test';
  return `${slug}-${hash16(testName).slice(0, 8)}`;
}

/** The cassette folder of a test: `<dir>/<cassetteName(testName)>`. */
export function cassettePath(testName: string, dir: string): string {
  return join(dir, cassetteName(testName));
}
