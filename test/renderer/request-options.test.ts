import { describe, expect, it } from 'vitest';
import { appSessionCapabilities } from '../../src/shared/app-session.js';
import {
  declaredText,
  headerLines,
  parseHeaderLines,
  parseMeta,
  parseRootLines,
  rootLines,
} from '../../src/renderer/src/models/request-options.js';

// What the user types as a request's headers, _meta and the app session's roots (issue 25 item 12).

describe('request options as typed', () => {
  it('reads headers one "Name: value" a line (a colon in the value kept), and says which line is wrong', () => {
    expect(parseHeaderLines('Authorization: Bearer a:b\n\n  X-Trace:  t-1  ')).toEqual({
      ok: true,
      value: { Authorization: 'Bearer a:b', 'X-Trace': 't-1' },
    });
    expect(parseHeaderLines('X-A: 1\nno colon')).toEqual({
      ok: false,
      message: 'headers, line 2: expected "Name: value"',
    });
    expect(parseHeaderLines(': empty name')).toMatchObject({ ok: false });
    expect(parseHeaderLines(headerLines({ A: '1', B: 'two words' }))).toEqual({
      ok: true,
      value: { A: '1', B: 'two words' },
    });
  });

  it('reads _meta as a JSON object, none when empty', () => {
    expect(parseMeta('  ')).toEqual({ ok: true, value: undefined });
    expect(parseMeta('{"k": 1}')).toEqual({ ok: true, value: { k: 1 } });
    expect(parseMeta('[1]')).toEqual({ ok: false, message: '_meta must be a JSON object' });
    expect(parseMeta('{')).toMatchObject({ ok: false, message: expect.stringMatching(/^_meta: /) });
  });

  it('reads roots one a line with an optional name, and says what a session declares', () => {
    const roots = parseRootLines('file:///a project a\n\nfile:///b');
    expect(roots).toEqual([{ uri: 'file:///a', name: 'project a' }, { uri: 'file:///b' }]);
    expect(parseRootLines(rootLines(roots))).toEqual(roots);
    const config = { capabilities: { sampling: true, elicitation: false, roots: true }, roots };
    expect(declaredText(appSessionCapabilities(config), 2)).toBe('sampling, roots (2)');
    expect(declaredText({})).toBe('nothing');
    expect(declaredText({ experimental: {}, elicitation: { form: {} } })).toBe('elicitation');
  });
});
