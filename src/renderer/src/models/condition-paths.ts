import type { BreakpointStage } from '../../../shared/breakpoints.js';

/** the request methods a breakpoint is most often set on (any other can be typed) */
export const COMMON_METHODS = [
  'tools/call',
  'resources/read',
  'prompts/get',
  'resources/subscribe',
  'completion/complete',
  'tools/list',
  '*',
  // the server's requests: the client's reply is held
  'sampling/createMessage',
  'elicitation/create',
  'roots/list',
] as const;

/** what a method's `tool` field names, for its label and placeholder */
export function nameOf(method: string): { label: string; placeholder: string } {
  if (method === 'tools/call') return { label: 'Tool', placeholder: 'tool name, or * for all' };
  if (method === 'prompts/get') return { label: 'Prompt', placeholder: 'prompt name, or * for all' };
  if (method.startsWith('resources/')) return { label: 'URI', placeholder: 'resource URI, or * for all' };
  return { label: 'Name', placeholder: '* (this method names nothing)' };
}

const RESULT_PATHS: Record<string, string[]> = {
  'tools/call': ['result.content[*].text', 'result.isError', 'result.structuredContent'],
  'resources/read': ['result.contents[*].text', 'result.contents[*].uri'],
  'prompts/get': ['result.messages[*].content.text', 'result.description'],
  'sampling/createMessage': ['result.content.text', 'result.model'],
  'elicitation/create': ['result.action', 'result.content'],
  'roots/list': ['result.roots[*].uri'],
};

/**
 * Paths worth offering in a condition: the tool's own arguments (from its input schema), the params a method takes,
 * and at the response stage what its result holds. Pure.
 */
export function conditionPaths(
  method: string,
  stage: BreakpointStage,
  inputSchema?: Record<string, unknown>,
): string[] {
  const paths: string[] = [];
  const properties = inputSchema?.properties;
  if (method === 'tools/call') {
    if (properties && typeof properties === 'object')
      for (const key of Object.keys(properties)) paths.push(`params.arguments.${key}`);
    paths.push('params.arguments', 'params.name');
  } else if (method === 'prompts/get') paths.push('params.name', 'params.arguments');
  else if (method.startsWith('resources/')) paths.push('params.uri');
  else if (method === 'sampling/createMessage') paths.push('params.messages[*].content.text', 'params.systemPrompt');
  else if (method === 'elicitation/create') paths.push('params.message');
  else paths.push('method', 'params');
  if (stage === 'response') paths.push(...(RESULT_PATHS[method] ?? ['result']));
  paths.push('params._meta');
  return paths;
}
