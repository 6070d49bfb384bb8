import {
  applyEdits,
  findNodeAtLocation,
  getNodeValue,
  modify,
  parseTree,
  printParseErrorCode,
  type FormattingOptions,
  type ParseError,
} from 'jsonc-parser';
import { MAX_FILE_JSON_DEPTH, tooDeep } from '../../shared/json-depth.js';
import { lineColumn, MalformedConfig, type ConfigDoc, type NewValue } from './config-types.js';

/** The file's own indentation and line ends, for what jsonc-parser writes. */
function formattingOf(text: string): FormattingOptions {
  const indent = /^([ \t]+)\S/m.exec(text)?.[1] ?? '  ';
  return {
    insertSpaces: !indent.startsWith('\t'),
    tabSize: indent.startsWith('\t') ? 1 : indent.length,
    eol: text.includes('\r\n') ? '\r\n' : '\n',
  };
}

/** JSON (strict: no comments, no trailing commas, as JSON.parse reads it) or JSONC (both allowed). */
export function openJsonDoc(text: string, format: 'json' | 'jsonc'): ConfigDoc {
  if (tooDeep(text, MAX_FILE_JSON_DEPTH)) throw new MalformedConfig(`nested deeper than ${MAX_FILE_JSON_DEPTH} levels`);
  const errors: ParseError[] = [];
  const strict = format === 'json';
  const tree = parseTree(text, errors, {
    allowTrailingComma: !strict,
    disallowComments: strict,
    allowEmptyContent: true,
  });
  if (errors.length > 0) {
    const first = errors[0];
    const what = printParseErrorCode(first.error)
      .replace(/([a-z])([A-Z])/g, '$1 $2')
      .toLowerCase();
    throw new MalformedConfig(
      `not valid ${strict ? 'JSON' : 'JSON with comments'}: ${what} at ${lineColumn(text, first.offset)}`,
    );
  }
  if (tree && tree.type !== 'object') throw new MalformedConfig('not a JSON object');
  const formatting = formattingOf(text);
  return {
    text,
    format,
    value: tree ? getNodeValue(tree) : {},
    raw(path) {
      const node = tree && findNodeAtLocation(tree, path);
      return node && text.slice(node.offset, node.offset + node.length);
    },
    set(path, value: NewValue | undefined) {
      const node = tree && findNodeAtLocation(tree, path);
      if (node && value && 'raw' in value)
        return text.slice(0, node.offset) + value.raw + text.slice(node.offset + node.length);
      const plain = value === undefined ? undefined : 'raw' in value ? (JSON.parse(value.raw) as unknown) : value.value;
      return applyEdits(text, modify(text, path, plain, { formattingOptions: formatting }));
    },
  };
}
