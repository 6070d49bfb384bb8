import { resultProblems } from '../../../shared/insight/result-check.js';
import { parseDistilled } from '../../../shared/cassette/entry.js';

/**
 * What the cassette editor says about its text as you type, before Save: JSON (with the line and column of a syntax
 * error), a cassette entry of its kind (the same parser replay uses), and for a tools/call entry a result in the
 * CallToolResult by the protocol's own schema for its revision (the SDK's). The engine checks again on Save.
 */
export function entryProblem(file: string, key: string, text: string): string | undefined {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    const message = (error as Error).message;
    const at = /position (\d+)/.exec(message);
    if (!at) return `Invalid JSON — ${message}`;
    const before = text.slice(0, Number(at[1])).split('\n');
    return `Invalid JSON — line ${before.length}, column ${before[before.length - 1].length + 1}: ${message}`;
  }
  let result: unknown;
  try {
    result = parseDistilled(0, key, file, data).result;
  } catch (error) {
    const issues = (error as { issues?: Array<{ path: PropertyKey[]; message: string }> }).issues;
    return `Not a cassette entry — ${issues ? issues.map((i) => `${i.path.length ? i.path.join('.') : '(entry)'}: ${i.message}`).join('; ') : (error as Error).message}`;
  }
  if (key.startsWith('tools_call_')) {
    // the protocol's own schema for the entry's revision (the SDK's), as the engine checks on Save
    const prefix = typeof data === 'object' && data !== null && 'result' in data ? 'result' : '(result)';
    const version = (data as { protocolVersion?: unknown }).protocolVersion;
    const problems = resultProblems('tools/call', result, typeof version === 'string' ? version : undefined, prefix);
    if (problems.length > 0) return `Not an MCP tool result — ${problems.join('; ')}`;
  }
  return undefined;
}
