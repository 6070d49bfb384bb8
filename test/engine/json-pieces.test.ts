/**
 * jsonPieces gives JSON.stringify's text, byte for byte, in pieces: long strings (beyond a 1 Mi-character slice)
 * are escaped a slice at a time, never splitting a surrogate pair.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { jsonPieces, jsonSha256, writeJsonAtomic } from '../../src/main/engine/fs/json-pieces.js';
import { removeTempDirs, tempDir } from '../helpers/temp.js';

afterEach(removeTempDirs);

const SLICE = 16 * 1024;
/** a long string whose slice boundaries fall inside surrogate pairs and next to characters JSON escapes */
const tricky =
  'a'.repeat(SLICE - 1) +
  '😀' +
  '"\\\n\u0001'.repeat(1000) +
  '\ud800 lone ' +
  'é'.repeat(SLICE) +
  '😀'.repeat(SLICE / 2);

describe('jsonPieces', () => {
  const values: Array<[string, unknown]> = [
    ['a small object (one piece)', { a: 1, b: [true, null, 'x'], c: { d: undefined } }],
    [
      'a result with long strings',
      {
        result: {
          content: [
            { type: 'text', text: tricky },
            { type: 'text', text: 'short' },
          ],
        },
        arr: [undefined, tricky.slice(5)],
      },
    ],
    ['a long string alone', tricky],
    ['a string holding what a placeholder looks like', { text: '\u0000abc:0'.repeat(SLICE) }],
    ['a Date (toJSON)', { at: new Date(0), long: 'z'.repeat(SLICE + 1) }],
  ];
  for (const [what, value] of values) {
    it(`${what}: the pieces joined are JSON.stringify's text, compact and indented`, () => {
      for (const space of [undefined, 2])
        expect([...jsonPieces(value, space)].join('')).toBe(JSON.stringify(value, null, space));
      expect(jsonSha256(value)).toBe(createHash('sha256').update(JSON.stringify(value)).digest('hex'));
    });
  }

  it('a long string comes out in several pieces, each at most a slice escaped', () => {
    const pieces = [...jsonPieces({ text: 'x'.repeat(3 * SLICE) })];
    expect(pieces.length).toBeGreaterThan(3);
    expect(Math.max(...pieces.map((p) => p.length))).toBeLessThanOrEqual(SLICE);
  });

  it('writeJsonAtomic writes the indented text, streamed or in one write', async () => {
    const dir = await tempDir();
    for (const [name, value] of [
      ['small.json', { a: 1 }],
      ['large.json', { text: tricky }],
    ] as const) {
      const chars = await writeJsonAtomic(dir, name, value);
      const text = JSON.stringify(value, null, 2);
      expect(await readFile(join(dir, name), 'utf8')).toBe(text);
      expect(chars).toBe(text.length);
    }
  });
});
