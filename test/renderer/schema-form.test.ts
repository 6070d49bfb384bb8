import { describe, expect, it } from 'vitest';
import {
  addItem,
  fromJsonText,
  getAt,
  initialValue,
  itemAt,
  numberFrom,
  optionKey,
  optionOf,
  pathText,
  problemsByPath,
  promptForm,
  removeItem,
  setAt,
  formOf,
  type Field,
} from '../../src/renderer/src/models/schema-form.js';

const EVENT_SCHEMA = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  type: 'object',
  properties: {
    title: { type: 'string', title: 'Title', description: 'What happens' },
    when: {
      type: 'object',
      properties: {
        date: { type: 'string', format: 'date' },
        allDay: { type: 'boolean', default: false },
        hours: { type: 'integer' },
      },
      required: ['date'],
    },
    priority: { enum: ['low', 'normal', 'high'], default: 'normal' },
    attendees: {
      type: 'array',
      items: {
        type: 'object',
        properties: { name: { type: 'string' }, email: { type: 'string', format: 'email' } },
        required: ['name'],
      },
    },
    tags: { type: 'array', items: { type: 'string' } },
    note: { anyOf: [{ type: 'string' }, { type: 'null' }] },
    extra: { type: 'object', additionalProperties: { type: 'string' } },
    shape: { oneOf: [{ type: 'string' }, { type: 'number' }] },
  },
  required: ['title', 'when'],
};

const byName = (f: Field, name: string): Field => f.fields!.find((x) => x.name === name)!;

describe('schema form: fields from a JSON Schema', () => {
  it('gives each property its kind, label, required mark, default and format; nested objects and arrays recurse', () => {
    const form = formOf(EVENT_SCHEMA);
    expect(form.kind).toBe('object');
    expect(form.fields!.map((f) => [f.name, f.kind, f.required])).toEqual([
      ['title', 'string', true],
      ['when', 'object', true],
      ['priority', 'enum', false],
      ['attendees', 'array', false],
      ['tags', 'array', false],
      ['note', 'string', false],
      ['extra', 'json', false],
      ['shape', 'json', false],
    ]);
    expect(byName(form, 'title')).toMatchObject({ label: 'Title', description: 'What happens', path: ['title'] });
    const when = byName(form, 'when');
    expect(when.fields!.map((f) => [f.name, f.kind, f.required, f.path])).toEqual([
      ['date', 'string', true, ['when', 'date']],
      ['allDay', 'boolean', false, ['when', 'allDay']],
      ['hours', 'integer', false, ['when', 'hours']],
    ]);
    expect(byName(when, 'date').format).toBe('date');
    expect(byName(form, 'priority')).toMatchObject({ options: ['low', 'normal', 'high'], default: 'normal' });
    expect(byName(form, 'attendees').item).toMatchObject({ kind: 'object', path: ['attendees', 0] });
    expect(byName(form, 'note').nullable).toBe(true);
    expect(byName(form, 'extra').reason).toMatch(/map of free keys/);
    expect(byName(form, 'shape').reason).toMatch(/oneOf/);
  });

  it('starts from the defaults and the required parts; optional fields stay absent', () => {
    expect(initialValue(formOf(EVENT_SCHEMA))).toEqual({ when: { allDay: false }, priority: 'normal' });
    expect(
      initialValue(
        formOf({
          type: 'object',
          properties: { flag: { type: 'boolean' }, on: { type: 'boolean' } },
          required: ['on'],
        }),
      ),
    ).toEqual({
      on: false,
    });
    expect(
      initialValue(formOf({ type: 'object', properties: { kind: { const: 'fixed' } }, required: ['kind'] })),
    ).toEqual({ kind: 'fixed' });
    expect(initialValue(formOf(undefined))).toEqual({});
  });

  it('follows local $refs ($defs), and stops at a recursive one with a JSON field', () => {
    const form = formOf({
      type: 'object',
      $defs: {
        point: { type: 'object', properties: { x: { type: 'number' } } },
        node: { type: 'object', properties: { next: { $ref: '#/$defs/node' } } },
      },
      properties: { at: { $ref: '#/$defs/point' }, list: { $ref: '#/$defs/node' } },
    });
    expect(byName(byName(form, 'at'), 'x')).toMatchObject({ kind: 'number', path: ['at', 'x'] });
    expect(byName(byName(form, 'list'), 'next')).toMatchObject({ kind: 'json', reason: 'a recursive schema' });
  });

  it('treats tuples, type unions and untyped values as JSON, saying why', () => {
    const form = formOf({
      type: 'object',
      properties: { t: { type: 'array', items: [{ type: 'string' }] }, u: { type: ['string', 'number'] }, any: {} },
    });
    expect(form.fields!.map((f) => [f.kind, f.reason])).toEqual([
      ['json', 'a tuple: give it as JSON'],
      ['json', 'one of several types (string, number): give it as JSON'],
      ['json', 'any JSON value'],
    ]);
  });

  it("builds a prompt's form from its arguments (strings, required marked)", () => {
    const form = promptForm([{ name: 'city', description: 'Name of the city', required: true }, { name: 'state' }]);
    expect(form.fields!.map((f) => [f.name, f.kind, f.required, f.description])).toEqual([
      ['city', 'string', true, 'Name of the city'],
      ['state', 'string', false, undefined],
    ]);
  });
});

describe('schema form: editing the value', () => {
  it('sets, reads and clears nested values without touching the rest', () => {
    const v0 = { title: 'x', when: { date: '2026-01-01' } };
    const v1 = setAt(v0, ['when', 'allDay'], true);
    expect(v1).toEqual({ title: 'x', when: { date: '2026-01-01', allDay: true } });
    expect(v0).toEqual({ title: 'x', when: { date: '2026-01-01' } }); // immutable
    expect(getAt(v1, ['when', 'allDay'])).toBe(true);
    expect(setAt(v1, ['title'], undefined)).toEqual({ when: { date: '2026-01-01', allDay: true } }); // an emptied optional field is absent
    expect(setAt(undefined, ['a', 'b'], 1)).toEqual({ a: { b: 1 } });
  });

  it('adds and removes array items, each with its own field paths', () => {
    const attendees = byName(formOf(EVENT_SCHEMA), 'attendees');
    let v: unknown = {};
    v = addItem(v, ['attendees'], attendees.item!);
    v = addItem(v, ['attendees'], attendees.item!);
    expect(v).toEqual({ attendees: [{}, {}] });
    const second = itemAt(attendees, 1);
    expect(second).toMatchObject({ label: '2', path: ['attendees', 1] });
    expect(byName(second, 'email').path).toEqual(['attendees', 1, 'email']);
    v = setAt(v, byName(second, 'name').path, 'Ada');
    v = setAt(v, byName(itemAt(attendees, 0), 'name').path, 'Bob');
    expect(removeItem(v, ['attendees', 0])).toEqual({ attendees: [{ name: 'Ada' }] });
    expect(addItem({}, ['tags'], byName(formOf(EVENT_SCHEMA), 'tags').item!)).toEqual({ tags: [''] });
  });

  it('reads numbers leniently: empty is absent, text that is no number is kept for the check to flag', () => {
    expect(numberFrom('', false)).toBeUndefined();
    expect(numberFrom(' 42 ', true)).toBe(42);
    expect(numberFrom('1.5', false)).toBe(1.5);
    expect(numberFrom('1.5', true)).toBe('1.5');
    expect(numberFrom('abc', false)).toBe('abc');
  });

  it('maps enum options (any JSON type) to select values and back', () => {
    const field = formOf({ type: 'object', properties: { n: { enum: [1, 'one', null, true] } } }).fields![0];
    expect(field.options!.map(optionKey)).toEqual(['1', '"one"', 'null', 'true']);
    expect(optionOf(field, 'null')).toBeNull();
    expect(optionOf(field, '1')).toBe(1);
    expect(optionOf(field, '')).toBeUndefined();
  });

  it('names paths as the engine check does, and groups its problems by path', () => {
    expect(pathText(['attendees', 1, 'email'])).toBe('attendees[1].email');
    expect(pathText([])).toBe('');
    const grouped = problemsByPath([
      { path: 'title', message: 'required' },
      { path: 'attendees[1].email', message: 'must match format "email"' },
      { path: 'title', message: 'must be string' },
    ]);
    expect(grouped.get('title')).toEqual(['required', 'must be string']);
    expect(grouped.get('attendees[1].email')).toEqual(['must match format "email"']);
  });

  it('raw JSON mode: text to value, or why not', () => {
    expect(fromJsonText('{"a": [1]}')).toEqual({ ok: true, value: { a: [1] } });
    expect(fromJsonText('{"a": ')).toMatchObject({ ok: false, message: expect.stringMatching(/^not JSON/) });
  });
});
