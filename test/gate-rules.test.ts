/**
 * The CI gate's rule ids (issue 33): docs/cli.md's table and the code's rule list agree row by row (id, level,
 * command), the ids are unique and well-formed, and the secretlint preset rules we name are the preset's own.
 */
import { readFileSync } from 'node:fs';
import { creator as recommended } from '@secretlint/secretlint-rule-preset-recommend';
import { describe, expect, it } from 'vitest';
import { allGateRules } from '../src/shared/gate/rule-catalog.js';
import { PRESET_RULES } from '../src/shared/gate/secret-rules.js';
import { REPO } from './helpers/hostile.js';

/** The rows of the table under "### Rule ids and levels": id, level, command. */
function documentedRules(): Array<{ id: string; level: string; command: string }> {
  const page = readFileSync(`${REPO}/docs/cli.md`, 'utf8');
  const section = page.split('\n### Rule ids and levels\n')[1]?.split('\n### ')[0] ?? '';
  return section
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) => {
      const [id, level, command] = line.split(' | ');
      return { id: id.replace(/^\| `|`$/g, ''), level, command };
    });
}

describe('gate rule ids', () => {
  it('docs/cli.md lists every rule the code reports, with its level and command, and no other', () => {
    const code = allGateRules().map(({ id, level, command }) => ({ id, level, command }));
    expect(code.length).toBeGreaterThan(40);
    expect(documentedRules()).toEqual(code);
  });

  it('ids are unique and of the form family.name', () => {
    const ids = allGateRules().map((r) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^[a-z]+\.[a-z0-9]+(-[a-z0-9]+)*$/);
  });

  it('the secretlint rules named are the installed preset’s (its filter-comments rule reports nothing)', () => {
    const preset = recommended.rules.map((r) => r.meta.id).filter((id) => !id.endsWith('-filter-comments'));
    expect([...PRESET_RULES].sort()).toEqual([...preset].sort());
  });
});
