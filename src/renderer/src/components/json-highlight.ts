import { HighlightStyle, syntaxHighlighting } from '@codemirror/language';
import { tags } from '@lezer/highlight';

/**
 * JSON colours for every CodeMirror view of the app, from the theme's CSS variables (the same as the JSON tree's), so
 * they read in the light and the dark theme alike; CodeMirror's default style is for light backgrounds only.
 */
export const jsonHighlighting = syntaxHighlighting(
  HighlightStyle.define([
    { tag: tags.propertyName, color: 'var(--json-key)' },
    { tag: tags.string, color: 'var(--json-string)' },
    { tag: tags.number, color: 'var(--json-number)' },
    { tag: [tags.bool, tags.null], color: 'var(--json-literal)' },
    { tag: [tags.separator, tags.brace, tags.squareBracket, tags.punctuation], color: 'var(--text)' },
    { tag: tags.invalid, color: 'var(--bad)' },
  ]),
);
