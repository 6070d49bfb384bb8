import { RULES, type Severity } from '../insight/findings.js';
import { diffGateRules } from './diff-rules.js';
import type { GateRule, Level } from './levels.js';
import { secretGateRules } from './secret-rules.js';

/**
 * Every rule the CI gate can report, by command, with its stable id and level: the list docs/cli.md's rule table
 * shows (test/gate-rules.test.ts holds the two together) and each SARIF run's `tool.driver.rules`.
 */

/** lint's findings keep their severities: `info` is SARIF's `note`. */
export const levelOfSeverity = (severity: Severity): Level => (severity === 'info' ? 'note' : severity);

export const lintGateRules = (): GateRule[] =>
  Object.entries(RULES).map(([id, r]) => ({
    id,
    level: levelOfSeverity(r.severity),
    title: r.title,
    command: 'lint',
  }));

export const allGateRules = (): GateRule[] => [...lintGateRules(), ...diffGateRules(), ...secretGateRules()];
