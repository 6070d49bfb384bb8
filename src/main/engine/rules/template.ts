/** The text of a tool result: its text blocks joined by newlines. */
export function textOf(result: Record<string, unknown>): string {
  const content = Array.isArray(result.content) ? (result.content as Array<Record<string, unknown>>) : [];
  return content
    .filter((b) => b.type === 'text' && typeof b.text === 'string')
    .map((b) => b.text as string)
    .join('\n');
}

/**
 * The most an inject template may render to. Placeholders multiply: 60,000 `{args.x}` of a 10 kB argument would be
 * 600 MB, beyond V8's string limit (a RangeError mid-answer). A template past this bound fails with a clear error.
 */
const MAX_RENDERED_CHARS = 16 * 1024 * 1024;

class TemplateTooLargeError extends Error {
  override name = 'TemplateTooLargeError';
  constructor(limit: number) {
    super(
      `mcp-rewind: the inject template renders to more than ${Math.round(limit / (1024 * 1024))} MiB; shorten the template or use fewer placeholders`,
    );
  }
}

/**
 * Renders an inject template (MiMCP's placeholders):
 * `{original_text}` the upstream's text content, `{original_payload}` the whole result as JSON,
 * `{args.<name>}` the agent's argument (JSON-encoded when not a string). Unknown placeholders stay literal.
 * Throws TemplateTooLargeError past `limit` characters, before building the string.
 */
export function renderTemplate(
  template: string,
  result: Record<string, unknown>,
  args: Record<string, unknown> | undefined,
  limit = MAX_RENDERED_CHARS,
): string {
  let text: string | undefined;
  let payload: string | undefined;
  let size = template.length;
  const rendered = template.replace(
    /\{(original_text|original_payload|args\.([^{}]+))\}/g,
    (whole, name: string, argName: string | undefined) => {
      let value: string;
      if (name === 'original_text') value = text ??= textOf(result);
      else if (name === 'original_payload') value = payload ??= JSON.stringify(result);
      else if (argName === undefined || !args || !Object.prototype.hasOwnProperty.call(args, argName)) value = whole;
      else value = typeof args[argName] === 'string' ? (args[argName] as string) : JSON.stringify(args[argName]);
      size += value.length - whole.length;
      if (size > limit) throw new TemplateTooLargeError(limit);
      return value;
    },
  );
  return rendered;
}
