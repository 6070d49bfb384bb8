import { describe, expect, it } from 'vitest';
import { RulesFileSchema, type ToolRule } from '../../src/shared/rules/schema.js';
import {
  checkDraft,
  EMPTY_OBJECT_SCHEMA,
  emptyForm,
  formToCandidate,
  issuesAt,
  ruleToForm,
  syntheticForm,
  type ToolForm,
} from '../../src/renderer/src/models/rules-form.js';

/** The Rules view's form model, validated with the engine's own RulesFileSchema (no engine needed: pure logic). */

const draft = (forms: ToolForm[], passthrough = true, instructions?: string) => ({ forms, passthrough, instructions });

describe('rules form: rule → form', () => {
  it('starts a form as a relay keeping the upstream description and schema; a synthetic tool answers by itself', () => {
    expect(emptyForm('echo')).toEqual({
      name: 'echo',
      behavior: 'relay',
      template: '{original_text}',
      text: '',
      contentJson: '',
      structuredJson: '',
      isError: false,
      delay: '',
      description: null,
      inputSchemaJson: null,
      hidden: false,
      condition: { path: '', op: 'contains', value: '' },
    });
    const synthetic = syntheticForm('made-up');
    expect(synthetic).toMatchObject({
      name: 'made-up',
      behavior: 'override',
      text: 'made-up: not implemented',
      description: '',
      inputSchemaJson: EMPTY_OBJECT_SCHEMA,
    });
    // as it stands, a synthetic form is a valid rule (MCP requires an object input schema)
    const check = checkDraft(draft([synthetic]));
    expect(check.summary).toBeUndefined();
    expect(check.rules?.tools[0]).toEqual({
      name: 'made-up',
      description: '',
      input_schema: { type: 'object', properties: {} },
      behavior: { type: 'override', response: { text: 'made-up: not implemented' } },
    });
  });

  it('hides one tool with one rule: { name, hidden: true } (the behavior stays a relay)', () => {
    const hidden = { ...emptyForm('secret'), hidden: true };
    expect(checkDraft(draft([hidden])).rules?.tools[0]).toEqual({
      name: 'secret',
      hidden: true,
      behavior: { type: 'relay' },
    });
    expect(ruleToForm({ name: 'secret', hidden: true })).toEqual(hidden);
    expect(checkDraft(draft([emptyForm('shown')])).rules?.tools[0]).not.toHaveProperty('hidden');
  });

  it('turns each behavior into form strings (JSON pretty-printed, delay in seconds)', () => {
    expect(ruleToForm({ name: 'a' })).toEqual(emptyForm('a'));
    expect(ruleToForm({ name: 'a', behavior: null, description: null, input_schema: null })).toEqual(emptyForm('a'));
    expect(ruleToForm({ name: 'a', behavior: { type: 'inject', template: '[{original_text}]' } })).toMatchObject({
      behavior: 'inject',
      template: '[{original_text}]',
    });
    const form = ruleToForm({
      name: 'b',
      description: 'patched',
      input_schema: { type: 'object', properties: { q: { type: 'string' } } },
      behavior: {
        type: 'override',
        response: {
          content: [{ type: 'text', text: 'x' }],
          structured_content: { n: 1 },
          is_error: true,
          delay_s: 0.25,
        },
      },
    });
    expect(form).toEqual({
      ...emptyForm('b'),
      behavior: 'override',
      description: 'patched',
      inputSchemaJson: JSON.stringify({ type: 'object', properties: { q: { type: 'string' } } }, null, 2),
      contentJson: JSON.stringify([{ type: 'text', text: 'x' }], null, 2),
      structuredJson: '{\n  "n": 1\n}',
      isError: true,
      delay: '0.25',
    });
  });

  it('round-trips every rule kind through form and checkDraft unchanged', () => {
    const tools: ToolRule[] = [
      { name: 'relay', behavior: { type: 'relay' } },
      { name: 'inject', description: '', behavior: { type: 'inject', template: '{original_text} + {args.q}' } },
      { name: 'text', behavior: { type: 'override', response: { text: 'fixed', delay_s: 0 } } },
      {
        name: 'blocks',
        description: 'd',
        input_schema: { type: 'object', required: ['q'] },
        behavior: {
          type: 'override',
          response: {
            content: [{ type: 'image', data: 'AA==', mimeType: 'image/png' }],
            structured_content: { a: [1] },
            is_error: true,
            delay_s: 3,
          },
        },
      },
    ];
    const check = checkDraft(draft(tools.map(ruleToForm), false, 'be brief'));
    expect(check.summary).toBeUndefined();
    expect(check.rules).toEqual({ instructions: 'be brief', passthrough: false, tools });
    expect(check.candidate).toEqual({ instructions: 'be brief', passthrough: false, tools });
    expect(RulesFileSchema.parse(check.candidate)).toEqual(check.rules);
  });
});

describe('rules form: form → candidate', () => {
  it('leaves out empty override fields and reports JSON syntax errors by field, keeping the rest', () => {
    expect(formToCandidate({ ...emptyForm('a'), behavior: 'override' })).toEqual({
      rule: { name: 'a', behavior: { type: 'override', response: {} } },
      issues: [],
    });
    const { rule, issues } = formToCandidate({
      ...emptyForm('a'),
      behavior: 'override',
      text: 'kept',
      contentJson: '[oops',
      structuredJson: '  ',
      delay: ' 1.5 ',
      inputSchemaJson: '{',
      description: 'x',
    });
    expect(rule).toEqual({
      name: 'a',
      description: 'x',
      behavior: { type: 'override', response: { text: 'kept', delay_s: 1.5 } },
    });
    expect(issues.map((i) => i.path)).toEqual(['input_schema', 'behavior.response.content']);
    expect(issues[0].message).toMatch(/^not valid JSON \(/);
    // a delay that is no number goes to zod as the string itself, so zod's message names the field
    expect(formToCandidate({ ...emptyForm('a'), behavior: 'override', delay: 'soon' }).rule).toMatchObject({
      behavior: { response: { delay_s: 'soon' } },
    });
  });
});

describe('rules form: checkDraft (RulesFileSchema)', () => {
  it('maps zod issues to the tool and field they concern, and gives no rules while anything is wrong', () => {
    const forms: ToolForm[] = [
      { ...emptyForm('ok'), behavior: 'inject', template: '{original_text}!' },
      { ...emptyForm('slow'), behavior: 'override', delay: '-1' },
      { ...emptyForm('nan'), behavior: 'override', delay: 'soon' },
      { ...emptyForm('both'), behavior: 'override', text: 't', contentJson: '[]' },
      { ...emptyForm('schema'), inputSchemaJson: '{"type":"string"}' },
      { ...emptyForm('json'), behavior: 'override', structuredJson: '{x' },
    ];
    const check = checkDraft(draft(forms));
    expect(check.rules).toBeUndefined();
    expect(check.byTool.ok).toBeUndefined();
    expect(check.byTool.slow).toEqual([
      { path: 'behavior.response.delay_s', message: expect.stringMatching(/>=\s*0/) },
    ]);
    expect(issuesAt(check.byTool.nan, 'behavior.response.delay_s')).toHaveLength(1);
    expect(check.byTool.both).toEqual([
      { path: 'behavior.response', message: 'give either text or content, not both' },
    ]);
    expect(issuesAt(check.byTool.schema, 'input_schema', true).map((i) => i.path)).toEqual(['input_schema.type']);
    expect(check.byTool.json).toEqual([
      { path: 'behavior.response.structured_content', message: expect.stringMatching(/^not valid JSON/) },
    ]);
    expect(check.general).toEqual([]);
    // one line naming every bad field, the JSON syntax errors first (per tool), then zod's
    expect(check.summary).toMatch(/^json: behavior\.response\.structured_content: not valid JSON/);
    for (const path of [
      'tools.1.behavior.response.delay_s',
      'tools.2.behavior.response.delay_s',
      'tools.3.behavior.response',
      'tools.4.input_schema.type',
    ])
      expect(check.summary).toContain(path);
    // the JSON view still shows the candidate of an invalid draft
    expect((check.candidate.tools as unknown[]).length).toBe(6);
  });

  it('a JSON syntax error alone makes the draft invalid, even though the candidate (without the field) parses', () => {
    const check = checkDraft(draft([{ ...emptyForm('a'), inputSchemaJson: 'nope' }]));
    expect(RulesFileSchema.safeParse(check.candidate).success).toBe(true);
    expect(check.rules).toBeUndefined();
    expect(check.summary).toMatch(/^a: input_schema: not valid JSON/);
  });

  it('reports a duplicate tool name on the tool, and file-level problems as general issues', () => {
    const dup = checkDraft(draft([emptyForm('echo'), { ...emptyForm('echo'), behavior: 'inject' }]));
    expect(dup.byTool.echo).toEqual([{ path: 'name', message: 'duplicate tool name "echo"' }]);
    expect(dup.summary).toBe('tools.1.name: duplicate tool name "echo"');

    const bad = checkDraft({
      forms: [],
      passthrough: 'yes' as unknown as boolean,
      instructions: 7 as unknown as string,
    });
    expect(bad.general.map((i) => i.path).sort()).toEqual(['instructions', 'passthrough']);
    expect(bad.byTool).toEqual({});
    expect(checkDraft(draft([])).rules).toEqual({ passthrough: true, tools: [] });
  });

  it('issuesAt picks a field exactly, or everything below it', () => {
    const issues = [
      { path: 'behavior.response', message: 'a' },
      { path: 'behavior.response.text', message: 'b' },
      { path: 'behavior.responses', message: 'c' },
    ];
    expect(issuesAt(issues, 'behavior.response').map((i) => i.message)).toEqual(['a']);
    expect(issuesAt(issues, 'behavior.response', true).map((i) => i.message)).toEqual(['a', 'b']);
    expect(issuesAt(undefined, 'x')).toEqual([]);
  });
});

describe('rules form: tools named like Object.prototype’s members', () => {
  it('a tool named constructor or __proto__ gets its own issues, and a clean one none (no inherited entry)', () => {
    const forms: ToolForm[] = [
      { ...emptyForm('__proto__'), behavior: 'override', contentJson: '[oops' },
      { ...emptyForm('constructor'), behavior: 'override', delay: '-1' },
      emptyForm('toString'),
    ];
    const check = checkDraft(draft(forms));
    expect(check.rules).toBeUndefined();
    expect(Object.keys(check.byTool).sort()).toEqual(['__proto__', 'constructor']);
    const issuesOf = (name: string): string[] | undefined => check.byTool[name]?.map((i) => i.path);
    expect(issuesOf('__proto__')).toEqual(['behavior.response.content']);
    expect(issuesOf('constructor')).toEqual(['behavior.response.delay_s']);
    expect(issuesOf('toString')).toBeUndefined();
    expect(check.summary).toMatch(/^__proto__: behavior\.response\.content: /);
  });
});

describe('rules form: a condition', () => {
  it('goes into the rule for override / inject only, comes back into the form, and a bad one is named by its field', () => {
    const condition = { path: 'params.arguments.query', op: 'regex' as const, value: '^drop' };
    const form: ToolForm = { ...emptyForm('sql'), behavior: 'override', text: 'no', condition };
    const check = checkDraft(draft([form]));
    expect(check.rules?.tools[0]).toMatchObject({ name: 'sql', condition });
    expect(ruleToForm(check.rules!.tools[0]).condition).toEqual(condition);
    // relay has nothing to limit: the condition is left out
    expect(formToCandidate({ ...form, behavior: 'relay' }).rule.condition).toBeUndefined();
    const bad = checkDraft(draft([{ ...form, condition: { ...condition, value: '(' } }]));
    expect(bad.rules).toBeUndefined();
    expect(issuesAt(bad.byTool.sql, 'condition', true).map((i) => i.path)).toEqual(['condition.value']);
    expect(bad.summary).toMatch(/tools\.0\.condition\.value: not a regular expression/);
  });
});
