import { useId, useState, type FormEvent, type JSX } from 'react';
import {
  BreakpointRuleInputSchema,
  DEFAULT_BREAKPOINT_METHOD,
  EVERY_PROXY,
  type BreakpointStage,
} from '../../../../shared/breakpoints.js';
import { describeZodError } from '../../../../shared/rules/schema.js';
import { ConditionFields } from '../../components/ConditionFields.js';
import { EMPTY_CONDITION, checkCondition } from '../../models/condition-draft.js';
import { useToolSchema } from '../../hooks/tool-schema.js';
import { COMMON_METHODS, conditionPaths, nameOf } from '../../models/condition-paths.js';
import { useBreakpoints } from '../../stores/breakpoints.js';
import { useProxies } from '../../stores/proxies.js';
import { STAGE_LABELS } from './BreakpointBanner.js';

/**
 * Add a breakpoint: in one proxy or every proxy, on a method (tools/call by default) and a name (the tool, prompt or
 * URI; * for any), before the request or before the response, and only if a condition holds (optional). Validated
 * as typed with the engine's own schema; Enter adds it.
 */
export function AddBreakpoint(): JSX.Element {
  const proxies = useProxies((s) => s.proxies);
  const add = useBreakpoints((s) => s.add);
  const [proxyId, setProxyId] = useState('');
  const [method, setMethod] = useState<string>(DEFAULT_BREAKPOINT_METHOD);
  const [tool, setTool] = useState('');
  const [when, setWhen] = useState<BreakpointStage>('request');
  const [condition, setCondition] = useState(EMPTY_CONDITION);
  const [error, setError] = useState<string>();
  const methodsId = useId();
  const target = proxyId === EVERY_PROXY || proxies.some((p) => p.id === proxyId) ? proxyId : (proxies[0]?.id ?? '');
  const schema = useToolSchema(
    method === 'tools/call' && tool.trim() !== '*' ? tool.trim() : undefined,
    target === EVERY_PROXY ? proxies.map((p) => p.id) : [target],
    target === EVERY_PROXY ? undefined : target,
  );
  const checked = checkCondition(condition);
  const name = nameOf(method.trim());
  const input = {
    tool: tool.trim() || (name.label === 'Name' ? '*' : ''),
    when,
    ...(method.trim() !== DEFAULT_BREAKPOINT_METHOD ? { method: method.trim() } : {}),
    ...(checked.ok && checked.condition ? { condition: checked.condition } : {}),
  };
  const parsed = BreakpointRuleInputSchema.safeParse(input);
  const problem = !checked.ok ? undefined : !parsed.success && input.tool ? describeZodError(parsed.error) : undefined;

  async function submit(event: FormEvent): Promise<void> {
    event.preventDefault();
    if (!parsed.success || !checked.ok) return;
    setError(undefined);
    try {
      await add(target, parsed.data);
      setTool('');
      setCondition(EMPTY_CONDITION);
    } catch (e) {
      setError((e as Error).message);
    }
  }

  return (
    <form className="bp-add" aria-label="Add breakpoint" onSubmit={(e) => void submit(e)}>
      <div className="bp-add-fields">
        <label>
          Proxy
          <select value={target} onChange={(e) => setProxyId(e.target.value)}>
            {proxies.map((p) => (
              <option key={p.id} value={p.id}>
                {p.name}
              </option>
            ))}
            <option value={EVERY_PROXY}>Every proxy</option>
          </select>
        </label>
        <label>
          Method
          <input
            className="bp-method"
            list={methodsId}
            value={method}
            onChange={(e) => setMethod(e.target.value)}
            spellCheck={false}
          />
          <datalist id={methodsId}>
            {COMMON_METHODS.map((m) => (
              <option key={m} value={m} />
            ))}
          </datalist>
        </label>
        <label>
          {name.label}
          <input
            className="bp-name"
            value={tool}
            onChange={(e) => setTool(e.target.value)}
            placeholder={name.placeholder}
            spellCheck={false}
          />
        </label>
        <label>
          When
          <select value={when} onChange={(e) => setWhen(e.target.value as BreakpointStage)}>
            <option value="request">{STAGE_LABELS.request}</option>
            <option value="response">{STAGE_LABELS.response}</option>
          </select>
        </label>
      </div>
      <ConditionFields
        draft={condition}
        onChange={setCondition}
        suggestions={conditionPaths(method.trim(), when, schema)}
        label="Breakpoint condition"
      />
      <div className="bp-add-end">
        <button type="submit" disabled={!target || !parsed.success || !checked.ok}>
          Add breakpoint
        </button>
        {(problem ?? error) && (
          <span role="alert" className="error small">
            {problem ?? error}
          </span>
        )}
      </div>
    </form>
  );
}
