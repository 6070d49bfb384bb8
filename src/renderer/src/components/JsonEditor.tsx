import { useEffect, useLayoutEffect, useRef, type JSX } from 'react';
import { basicSetup, EditorView } from 'codemirror';
import { json } from '@codemirror/lang-json';
import { EditorState } from '@codemirror/state';
import { jsonHighlighting } from './json-highlight.js';

const themeFor = (size: Record<string, string>) =>
  EditorView.theme({
    '&': { backgroundColor: 'var(--code-bg)', color: 'var(--text)', fontSize: '12.5px', ...size },
    '.cm-content': {
      caretColor: 'var(--text)',
      fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace',
    },
    '.cm-gutters': { backgroundColor: 'var(--panel)', color: 'var(--muted)', borderRight: '1px solid var(--border)' },
    '.cm-activeLine, .cm-activeLineGutter': { backgroundColor: 'var(--accent-soft)' },
    '&.cm-focused': { outline: 'none' },
    '.cm-scroller': { overflow: 'auto' },
  });

interface Props {
  /** the document; a new value (another entry, the saved text) replaces the editor's content */
  value: string;
  onChange(text: string): void;
  label: string;
  /** grow up to this height (a card); without it the editor fills its container */
  maxHeight?: string;
  className?: string;
}

/** A CodeMirror 6 JSON editor (syntax highlighting, brackets, search, undo), shared by the views that edit JSON. */
export function JsonEditor({ value, onChange, label, maxHeight, className = 'cm-host' }: Props): JSX.Element {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | undefined>(undefined);
  const changed = useRef(onChange);
  useLayoutEffect(() => {
    changed.current = onChange; // the newest callback, for the editor's update listener
  });

  useEffect(() => {
    const editor = new EditorView({
      parent: host.current!,
      state: EditorState.create({
        doc: value,
        extensions: [
          basicSetup,
          json(),
          jsonHighlighting,
          themeFor(maxHeight ? { maxHeight } : { height: '100%' }),
          EditorView.lineWrapping,
          EditorView.contentAttributes.of({ 'aria-label': label, tabindex: '0' }),
          EditorView.updateListener.of((update) => {
            if (update.docChanged) changed.current(update.state.doc.toString());
          }),
        ],
      }),
    });
    view.current = editor;
    return () => {
      editor.destroy();
      view.current = undefined;
    };
    // created once; value changes are applied below
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [label]);

  useEffect(() => {
    const editor = view.current;
    if (editor && editor.state.doc.toString() !== value) {
      editor.dispatch({ changes: { from: 0, to: editor.state.doc.length, insert: value } });
    }
  }, [value]);

  return <div className={className} ref={host} />;
}
