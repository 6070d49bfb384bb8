/** The text of a tool result: its text blocks joined by newlines. */
export function textOf(result: Record<string, unknown>): string {
  const content = Array.isArray(result.content) ? (result.content as Array<Record<string, unknown>>) : [];
  return content.filter((b) => b.type === 'text' && typeof b.text === 'string').map((b) => b.text as string).join('\n');
}

/**
 * Renders an inject template (MiMCP's placeholders):
 * `{original_text}` the upstream's text content, `{original_payload}` the whole result as JSON,
 * `{args.<name>}` the agent's argument (JSON-encoded when not a string). Unknown placeholders stay literal.
 */
export function renderTemplate(template: string, result: Record<string, unknown>, args: Record<string, unknown> | undefined): string {
  return template.replace(/\{(original_text|original_payload|args\.([^{}]+))\}/g, (whole, name: string, argName: string | undefined) => {
    if (name === 'original_text') return textOf(result);
    if (name === 'original_payload') return JSON.stringify(result);
    if (argName === undefined || !args || !Object.prototype.hasOwnProperty.call(args, argName)) return whole;
    const value = args[argName];
    return typeof value === 'string' ? value : JSON.stringify(value);
  });
}
