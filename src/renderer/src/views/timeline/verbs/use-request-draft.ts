import { useState } from 'react';
import { fromJsonText, toJsonText, type Field } from '../../../models/schema-form.js';
import { useSchemaProblems, type SchemaProblems } from '../../../hooks/tool-schema.js';
import type { Parsed } from '../../../models/request-options.js';

export type EditMode = 'form' | 'json';
type Params = Record<string, unknown>;

export interface ParamsDraft {
  mode: EditMode;
  /** the params as the form holds them (the raw JSON text is read into them on switching to the form) */
  current: Params;
  setArguments(value: unknown): void;
  text: string;
  setText(text: string): void;
  textError?: string;
  switchTo(next: EditMode): void;
  /** the params to send: the form's, or the raw JSON text's (undefined, with the error shown, when it is no object) */
  read(): Params | undefined;
}

function paramsOf(text: string): Parsed<Params> {
  const parsed = fromJsonText(text);
  if (!parsed.ok) return parsed;
  if (typeof parsed.value !== 'object' || parsed.value === null || Array.isArray(parsed.value))
    return { ok: false, message: 'params must be a JSON object' };
  return { ok: true, value: parsed.value as Params };
}

/** The request's params as edited in the form or as raw JSON, carried over when switching between the two. */
export function useParamsDraft(params: Params, hasArguments: boolean): ParamsDraft {
  const [mode, setMode] = useState<EditMode>(hasArguments ? 'form' : 'json');
  const [current, setCurrent] = useState<Params>(params);
  const [text, setText] = useState(() => toJsonText(params));
  const [textError, setTextError] = useState<string>();
  // a schema known only after the editor opened (asked of the proxy, a tools/list landing): the form takes over
  // unless the raw JSON was edited meanwhile; nothing typed is lost (the editor is not remounted for it)
  const [formKnown, setFormKnown] = useState(hasArguments);
  if (formKnown !== hasArguments) {
    setFormKnown(hasArguments);
    if (hasArguments && mode === 'json' && text === toJsonText(current)) setMode('form');
    if (!hasArguments && mode === 'form') {
      setText(toJsonText(current));
      setMode('json');
    }
  }

  function switchTo(next: EditMode): void {
    if (next === 'json') setText(toJsonText(current));
    else {
      const parsed = paramsOf(text);
      if (!parsed.ok) return setTextError(parsed.message);
      setCurrent(parsed.value);
    }
    setTextError(undefined);
    setMode(next);
  }

  function read(): Params | undefined {
    if (mode !== 'json') return current;
    const parsed = paramsOf(text);
    if (!parsed.ok) return void setTextError(parsed.message);
    return parsed.value;
  }

  const setArguments = (value: unknown): void => setCurrent({ ...current, arguments: value ?? {} });
  return { mode, current, setArguments, text, setText, textError, switchTo, read };
}

/**
 * What is wrong with the arguments: against the schema (checked by the engine), or for a prompt (a ready form, all
 * strings) its required arguments left empty.
 */
export function useArgumentProblems(
  givenForm: Field | undefined,
  schema: Record<string, unknown> | undefined,
  args: unknown,
  hasArguments: boolean,
): SchemaProblems {
  const checkedSchema = givenForm ? undefined : schema;
  const problems = useSchemaProblems(checkedSchema, args, hasArguments);
  const missing =
    givenForm && hasArguments
      ? (givenForm.fields ?? [])
          .filter((f) => f.required && !((args as Record<string, unknown> | undefined)?.[f.name] ?? ''))
          .map((f) => ({ path: f.name, message: 'required' }))
      : [];
  return [...(checkedSchema && hasArguments ? problems : []), ...missing];
}
