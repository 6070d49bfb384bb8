import { useEffect, useRef, type JSX } from 'react';
import { MergeView } from '@codemirror/merge';
import { EditorView, minimalSetup } from 'codemirror';
import { EditorState } from '@codemirror/state';
import { json } from '@codemirror/lang-json';
import { jsonHighlighting } from '../../components/json-highlight.js';

/** A config file before and after a change, side by side as text (changed lines and words marked, unchanged folded). */
export function FileDiff({ path, before, after }: { path: string; before: string; after: string }): JSX.Element {
  const host = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const language = path.endsWith('.toml') ? [] : [json(), jsonHighlighting];
    const extensions = [
      minimalSetup,
      ...language,
      EditorState.readOnly.of(true),
      EditorView.editable.of(false),
      EditorView.lineWrapping,
    ];
    const side = (doc: string, label: string) => ({
      doc,
      extensions: [
        ...extensions,
        EditorView.contentAttributes.of({ 'aria-label': `${path}: ${label}`, tabindex: '0' }),
      ],
    });
    const view = new MergeView({
      a: side(before, 'now'),
      b: side(after, 'after the change'),
      parent: host.current!,
      collapseUnchanged: { margin: 2, minSize: 4 },
      gutter: true,
    });
    return () => view.destroy();
  }, [path, before, after]);
  return (
    <section className="diff" aria-label={`Change to ${path}`}>
      <div className="diff-heads small muted">
        <span>now</span>
        <span>after the change</span>
      </div>
      <div ref={host} className="diff-host" />
    </section>
  );
}
