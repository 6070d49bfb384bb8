import safeRegex from 'safe-regex2';
import { z } from 'zod';
import { parseFieldPattern } from './json-path.js';

/**
 * A condition on a JSON-RPC message (docs/rules.md "Conditions"): a path into the message, an operator and a value.
 * Breakpoints and tool rules take one to apply only to the calls it matches. Data only: the engine evaluates it
 * (src/main/engine/rules/condition.ts); the UI validates it with this schema as the user types.
 *
 * The path is a field pattern (json-path.ts, the one `--ignore-fields` takes): `params.arguments.query`,
 * `$.params.uri`, `result.content[0].text`, `params.arguments.items[*].id`, `**.token` — no new JSONPath dialect.
 */
export const CONDITION_OPERATORS = ['equals', 'contains', 'regex'] as const;
export type ConditionOperator = (typeof CONDITION_OPERATORS)[number];

/** how each operator reads in the UI and in the docs */
export const OPERATOR_LABELS: Record<ConditionOperator, string> = {
  equals: 'equals',
  contains: 'contains',
  regex: 'matches',
};

/**
 * How much of a value a condition reads (its first characters): a regex runs on Node's backtracking engine, and
 * even a safe pattern costs time in proportion to the text it reads, on the proxy's one thread.
 */
export const CONDITION_TEXT_MAX = 10_000;

/** a pattern refused because it could backtrack for ever */
export class UnsafeRegexError extends SyntaxError {}

/**
 * `/text/flags` or bare `text`: a regular expression; throws a SyntaxError naming the problem. A pattern that could
 * backtrack for ever on some text (nested repetition, `(a+)+$`: star height above 1, as safe-regex2 judges it) is
 * refused: one message could stall the proxy.
 */
export function conditionRegex(value: string): RegExp {
  const slashed = /^\/(.*)\/([dgimsuvy]*)$/s.exec(value);
  // g and y make test() stateful: a condition must give the same answer for the same message
  const regex = slashed ? new RegExp(slashed[1], slashed[2].replace(/[gy]/g, '')) : new RegExp(value);
  if (!safeRegex(regex))
    throw new UnsafeRegexError(
      `${String(regex)} nests a repetition inside a repetition (like (a+)+): it can take exponential time on some text, which would stall the proxy; write it without the nesting (e.g. a+ for (a+)+)`,
    );
  return regex;
}

const checkPath = (path: string, ctx: z.RefinementCtx): void => {
  try {
    parseFieldPattern(path);
  } catch (error) {
    ctx.addIssue({ code: 'custom', message: (error as Error).message });
  }
};

export const ConditionSchema = z
  .strictObject({
    /** where to look in the message: `params.arguments.text`, `params.uri`, `result.content[0].text` */
    path: z.string().trim().min(1, 'a path is needed, e.g. params.arguments.text').max(500).superRefine(checkPath),
    op: z.enum(CONDITION_OPERATORS),
    /** compared as text: a string value as it is, any other value as its JSON (`5`, `true`, `{"a":1}`) */
    value: z.string().max(2000),
  })
  .superRefine((condition, ctx) => {
    if (condition.op !== 'regex') return;
    try {
      conditionRegex(condition.value);
    } catch (error) {
      ctx.addIssue({
        code: 'custom',
        path: ['value'],
        message:
          error instanceof UnsafeRegexError
            ? `refused: ${error.message}`
            : `not a regular expression: ${(error as Error).message}`,
      });
    }
  });
export type Condition = z.infer<typeof ConditionSchema>;

/** `params.arguments.text contains "x"`: a condition as one line (rule lists, flags on a held row) */
export function conditionText(condition: Condition): string {
  return `${condition.path} ${OPERATOR_LABELS[condition.op]} ${JSON.stringify(condition.value)}`;
}
