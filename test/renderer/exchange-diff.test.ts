import { describe, expect, it } from 'vitest';
import { brief, diffLines, diffValues, summary } from '../../src/shared/json-diff.js';

describe('exchange diff: structure with paths', () => {
  it('lists added, removed and changed values with their paths; equal values have none', () => {
    const a = {
      result: { content: [{ type: 'text', text: 'sunny' }], structuredContent: { temp: 21, unit: 'C' }, old: true },
    };
    const b = {
      result: { content: [{ type: 'text', text: 'rain' }], structuredContent: { temp: 14, unit: 'C', wind: 30 } },
    };
    const changes = diffValues(a, b);
    expect(changes.map((c) => [c.at, c.kind, c.before, c.after])).toEqual([
      ['result.content[0].text', 'changed', 'sunny', 'rain'],
      ['result.structuredContent.temp', 'changed', 21, 14],
      ['result.structuredContent.wind', 'added', undefined, 30],
      ['result.old', 'removed', true, undefined],
    ]);
    expect(summary(changes)).toBe('2 changed, 1 added, 1 removed');
    expect(diffValues(a, structuredClone(a))).toEqual([]);
    expect(summary([])).toBe('identical');
  });

  it('matches array items by name/uri/id, so an insertion is one addition, not every item changed', () => {
    const a = {
      tools: [
        { name: 'a', description: 'A' },
        { name: 'c', description: 'C' },
      ],
    };
    const b = {
      tools: [
        { name: 'a', description: 'A' },
        { name: 'b', description: 'B' },
        { name: 'c', description: 'C2' },
      ],
    };
    expect(diffValues(a, b).map((c) => [c.at, c.kind])).toEqual([
      ['tools[1]', 'added'],
      ['tools[2].description', 'changed'],
    ]);
    expect(diffValues({ xs: [1, 2, 3] }, { xs: [1, 3] }).map((c) => [c.at, c.kind, c.before])).toEqual([
      ['xs[1]', 'removed', 2],
    ]);
  });

  it('a type change at the root is one change of the whole value', () => {
    expect(diffValues({ a: 1 }, [1]).map((c) => [c.at, c.kind])).toEqual([['(the whole value)', 'changed']]);
  });
});

describe('exchange diff: text fields by line', () => {
  it('diffs a changed multi-line text line by line', () => {
    const [change] = diffValues({ text: 'line 1\nline 2\nline 3' }, { text: 'line 1\nline two\nline 3\nline 4' });
    expect(change.at).toBe('text');
    expect(change.lines).toEqual([
      { kind: 'same', text: 'line 1' },
      { kind: 'removed', text: 'line 2' },
      { kind: 'added', text: 'line two' },
      { kind: 'same', text: 'line 3' },
      { kind: 'added', text: 'line 4' },
    ]);
    expect(diffValues({ text: 'a' }, { text: 'b' })[0].lines).toBeUndefined(); // one-line texts: before → after is enough
  });

  it('keeps every line in reading order', () => {
    const lines = diffLines('a\nb\nc\nd', 'x\nb\nd\ny');
    expect(lines.filter((l) => l.kind !== 'added').map((l) => l.text)).toEqual(['a', 'b', 'c', 'd']);
    expect(lines.filter((l) => l.kind !== 'removed').map((l) => l.text)).toEqual(['x', 'b', 'd', 'y']);
  });

  it('shortens a value for the change list', () => {
    expect(brief('x'.repeat(500), 20)).toHaveLength(20);
    expect(brief({ a: 1 })).toBe('{"a":1}');
    expect(brief(undefined)).toBe('undefined');
  });
});
