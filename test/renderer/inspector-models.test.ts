import { describe, expect, it } from 'vitest';
import type { TrafficEvent } from '../../src/shared/api.js';
import { SettingsSchema, TIMELINE_COLUMNS } from '../../src/shared/settings.js';
import {
  allColumns,
  COLUMN_DEFS,
  DEFAULT_COLUMNS,
  dragWidths,
  layoutWidths,
  moveColumn,
  nextSort,
  sortRows,
  toggleColumn,
  visibleColumns,
} from '../../src/renderer/src/models/columns.js';
import { exchangeSizes, formatBytes, utf8Bytes } from '../../src/renderer/src/models/exchange-facts.js';
import { pick, pickMode } from '../../src/renderer/src/models/selection.js';
import { describeChar, hasHidden, nameParts, visibleName } from '../../src/renderer/src/models/visible-text.js';
import { defaultSettings } from '../../src/main/api/files/settings-file.js';

/** The table's columns, multi-select and names with hidden characters, as pure models. In Chromium: e2e/inspector-*.spec.ts. */

const ids = (cols: ReadonlyArray<{ id: string }>): string[] => cols.map((c) => c.id);

describe('columns', () => {
  it('the defaults: every column in order, Revision hidden; the settings file takes them', () => {
    expect(ids(COLUMN_DEFS)).toEqual([...TIMELINE_COLUMNS]);
    expect(ids(visibleColumns(DEFAULT_COLUMNS))).toEqual(TIMELINE_COLUMNS.filter((c) => c !== 'revision'));
    expect(SettingsSchema.parse(defaultSettings('/tmp/x')).timelineColumns).toEqual(DEFAULT_COLUMNS);
  });

  it('settings from another version: unknown ids dropped, missing ones added, # always shown', () => {
    const cols = visibleColumns({
      order: ['tool', 'gone', 'seq'],
      hidden: ['seq', 'time', 'revision'],
      widths: {},
      sort: null,
    });
    expect(ids(cols).slice(0, 2)).toEqual(['tool', 'seq']);
    expect(ids(cols)).not.toContain('time');
    expect(ids(cols)).toContain('size');
    expect(allColumns({ ...DEFAULT_COLUMNS, hidden: ['seq'] }).find((c) => c.def.id === 'seq')?.shown).toBe(true);
  });

  it('hide and show (a hidden sort column stops sorting), move, sort in three steps', () => {
    const sorted = { ...DEFAULT_COLUMNS, sort: { column: 'tool', desc: false } };
    const hidden = toggleColumn(sorted, 'tool');
    expect(hidden.hidden).toContain('tool');
    expect(hidden.sort).toBeNull();
    expect(toggleColumn(hidden, 'tool').hidden).not.toContain('tool');
    expect(toggleColumn(DEFAULT_COLUMNS, 'seq')).toBe(DEFAULT_COLUMNS);
    expect(moveColumn(DEFAULT_COLUMNS, 'tool', { by: -1 }).order.slice(2, 5)).toEqual(['proxy', 'tool', 'method']);
    // one place among the shown columns: Revision (hidden) is stepped over
    expect(ids(visibleColumns(moveColumn(DEFAULT_COLUMNS, 'size', { by: 1 }))).slice(-2)).toEqual(['flags', 'size']);
    expect(moveColumn(DEFAULT_COLUMNS, 'seq', { by: -1 })).toBe(DEFAULT_COLUMNS);
    expect(moveColumn(DEFAULT_COLUMNS, 'flags', { before: 'seq' }).order[0]).toBe('flags');
    expect(moveColumn(DEFAULT_COLUMNS, 'seq', { before: '' }).order.at(-1)).toBe('seq');
    const once = nextSort(DEFAULT_COLUMNS, 'duration');
    expect(once.sort).toEqual({ column: 'duration', desc: false });
    expect(nextSort(once, 'duration').sort).toEqual({ column: 'duration', desc: true });
    expect(nextSort(nextSort(once, 'duration'), 'duration').sort).toBeNull();
  });

  it('widths fill the pane: # as wide as its number needs, the rest in proportion, none below its minimum', () => {
    const cols = visibleColumns(DEFAULT_COLUMNS);
    const px = layoutWidths(cols, {}, 1000, 70);
    expect(px[0]).toBe(70);
    expect(px.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(1000);
    expect(px.reduce((a, b) => a + b, 0)).toBeGreaterThan(990);
    const narrow = layoutWidths(cols, {}, 300, 70);
    narrow.forEach((w, i) => expect(w).toBeGreaterThanOrEqual(cols[i].fixed ? 70 : cols[i].min));
    // a drag moves the edge: the column grows, the next one gives the room, neither below its minimum
    const dragged = dragWidths(cols, px, 1, 40);
    expect([dragged[1] - px[1], dragged[2] - px[2]]).toEqual([40, -40]);
    const far = dragWidths(cols, px, 1, 10_000);
    expect(far[2]).toBe(cols[2].min);
    expect(dragWidths(cols, px, 1, -10_000)[1]).toBe(cols[1].min);
  });

  it('sorts by a column, stable; numbers as numbers; pending last by duration; unsorted keeps the array', () => {
    const e = (seq: number, patch: Partial<TrafficEvent>): TrafficEvent =>
      ({
        proxyId: 'p',
        seq,
        method: 'tools/call',
        key: '',
        source: 'upstream',
        cassette: 'none',
        request: { jsonrpc: '2.0', id: seq, method: 'tools/call' },
        stream: [],
        startedAt: seq,
        durationMs: 0,
        response: { jsonrpc: '2.0', id: seq, result: {} },
        ...patch,
      }) as TrafficEvent;
    const rows = [
      e(1, { durationMs: 30, tool: 'b' }),
      e(2, { durationMs: 5, tool: 'a' }),
      e(3, { response: undefined, tool: 'B' }),
      e(4, { durationMs: 5, tool: 'tool10' }),
      e(5, { tool: 'tool9' }),
    ];
    const names = { proxyName: (id: string) => id, flags: () => '' };
    expect(sortRows(rows, null, names)).toBe(rows);
    expect(sortRows(rows, { column: 'duration', desc: false }, names).map((r) => r.seq)).toEqual([5, 2, 4, 1, 3]);
    expect(sortRows(rows, { column: 'duration', desc: true }, names).map((r) => r.seq)).toEqual([3, 1, 2, 4, 5]);
    expect(sortRows(rows, { column: 'tool', desc: false }, names).map((r) => r.tool)).toEqual([
      'a',
      'b',
      'B',
      'tool9',
      'tool10',
    ]);
    expect(sortRows(rows, { column: 'nope', desc: false }, names)).toBe(rows);
  });

  it('the Size column counts UTF-8 bytes, as the wire carries them, not UTF-16 code units', () => {
    const text = `天気 שלום تقرير café 🔧👩‍👩‍👧 ${'あ'.repeat(1000)}`;
    const e = {
      request: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: '天気_予報', arguments: {} } },
      response: { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text }] } },
      stream: [{ jsonrpc: '2.0', method: 'notifications/message', params: { data: '🔧 ✓' } }],
    } as unknown as TrafficEvent;
    const bytes = (v: unknown): number => Buffer.byteLength(JSON.stringify(v), 'utf8');
    const s = exchangeSizes(e);
    expect(s).toEqual({
      request: bytes(e.request),
      response: bytes(e.response),
      stream: bytes(e.stream),
      total: bytes(e.request) + bytes(e.response) + bytes(e.stream),
    });
    expect(s.response).toBeGreaterThan(JSON.stringify(e.response).length + 2000); // 'あ' is 1 code unit, 3 bytes
    for (const t of ['', 'a', 'é', 'あ', '🔧', '\ud83d', 'x\udd27y', '\ud83d\ud83d\udd27'])
      expect(utf8Bytes(t)).toBe(Buffer.byteLength(t, 'utf8'));
  });

  it('the Size column: request and answer bytes, full sizes where the timeline truncated them', () => {
    const e = {
      request: { jsonrpc: '2.0', id: 1, method: 'ping' },
      response: { jsonrpc: '2.0', id: 1, result: {} },
      stream: [],
    } as unknown as TrafficEvent;
    expect(exchangeSizes(e)).toEqual({ request: 40, response: 36, stream: 0, total: 76 });
    expect(exchangeSizes({ ...e, truncated: { response: 5_000_000 } }).response).toBe(5_000_000);
    expect([formatBytes(950), formatBytes(2048), formatBytes(12_800), formatBytes(5 * 1024 * 1024)]).toEqual([
      '950 B',
      '2.0 kB',
      '13 kB',
      '5.0 MB',
    ]);
  });
});

describe('multi-select', () => {
  const keys = ['a', 'b', 'head', 'c', 'd'];
  const rows = {
    count: keys.length,
    indexOf: (k: string) => keys.indexOf(k),
    keyAt: (i: number) => (keys[i] === 'head' ? undefined : keys[i]),
  };

  it('a click picks one; Ctrl adds or removes one; Shift picks the range from the anchor (group heads left out)', () => {
    let p = pick({ keys: new Set() }, 'b', 'only', rows);
    expect([...p.keys]).toEqual(['b']);
    p = pick(p, 'd', 'toggle', rows);
    expect([...p.keys].sort()).toEqual(['b', 'd']);
    p = pick(p, 'b', 'toggle', rows);
    expect([...p.keys]).toEqual(['d']);
    p = pick(pick({ keys: new Set() }, 'b', 'only', rows), 'd', 'range', rows);
    expect([...p.keys]).toEqual(['b', 'c', 'd']);
    expect(p.anchor).toBe('b');
    // the range grows and shrinks from the same anchor (Shift+↑/↓)
    expect([...pick(p, 'a', 'range', rows).keys]).toEqual(['a', 'b']);
    expect([...pick({ keys: new Set(), anchor: 'gone' }, 'c', 'range', rows).keys]).toEqual(['c']);
  });

  it('the mode a click means', () => {
    expect([
      pickMode({ shiftKey: true, ctrlKey: true, metaKey: false }),
      pickMode({ shiftKey: false, ctrlKey: false, metaKey: true }),
      pickMode({ shiftKey: false, ctrlKey: false, metaKey: false }),
    ]).toEqual(['range', 'toggle', 'only']);
  });
});

describe('names with hidden characters', () => {
  it('bidi controls, zero-width and control characters become visible marks; a plain name is untouched', () => {
    expect(visibleName('evil\u202Egnp.exe')).toBe('evil⟨U+202E⟩gnp.exe');
    expect(visibleName('a\u200Bb\u2066c\u0007d\uFEFF')).toBe('a⟨U+200B⟩b⟨U+2066⟩c⟨U+0007⟩d⟨U+FEFF⟩');
    expect(visibleName('tag\u{E0041}')).toBe('tag⟨U+E0041⟩');
    expect(visibleName('plain name — ünïcödé 名前 😀')).toBe('plain name — ünïcödé 名前 😀');
    expect(visibleName(undefined)).toBeUndefined();
    expect(hasHidden('x\u200Fy')).toBe(true);
    expect(nameParts('evil\u202Egnp.exe')).toEqual([{ text: 'evil' }, { hidden: '\u202E' }, { text: 'gnp.exe' }]);
    expect(nameParts('plain')).toEqual([{ text: 'plain' }]);
    expect(describeChar('\u202E')).toBe('U+202E RIGHT-TO-LEFT OVERRIDE');
    expect(describeChar('\u0007')).toBe('U+0007 (a control character)');
  });
});
