import { useEffect, useRef, useState, type JSX } from 'react';
import { minimalSetup } from 'codemirror';
import { json } from '@codemirror/lang-json';
import { EditorState } from '@codemirror/state';
import { EditorView } from '@codemirror/view';
import { jsonHighlighting } from '../../components/json-highlight.js';
import './rules.css';

/** The whole rules file as JSON (read-only CodeMirror), ready to paste into a `--rules` file. */
export function RulesJson({ value, valid }: { value: unknown; valid: boolean }): JSX.Element {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const [copied, setCopied] = useState<string>();
  const text = JSON.stringify(value, null, 2);

  useEffect(() => {
    if (!host.current) return;
    const editor = new EditorView({
      parent: host.current,
      state: EditorState.create({
        doc: '',
        extensions: [
          minimalSetup,
          json(),
          jsonHighlighting,
          EditorState.readOnly.of(true),
          EditorView.editable.of(false),
          EditorView.lineWrapping,
          EditorView.contentAttributes.of({ 'aria-label': 'Rules JSON', tabindex: '0' }),
        ],
      }),
    });
    view.current = editor;
    return () => {
      editor.destroy();
      view.current = null;
    };
  }, []);

  useEffect(() => {
    const editor = view.current;
    if (!editor || editor.state.doc.toString() === text) return;
    editor.dispatch({ changes: { from: 0, to: editor.state.doc.length, insert: text } });
  }, [text]);

  async function copy(): Promise<void> {
    try {
      await navigator.clipboard.writeText(text);
      setCopied('copied');
    } catch {
      setCopied('copy refused by the browser: select the text instead');
    }
  }

  return (
    <section className="card rules-json" aria-label="Rules file">
      <div className="toolbar">
        <h2>Rules file</h2>
        <span className="muted small">
          {valid ? 'save as rules.json and run with --rules rules.json' : 'draft — not valid yet'}
        </span>
        <button type="button" onClick={() => void copy()}>
          Copy
        </button>
        {copied && <span className="muted small">{copied}</span>}
      </div>
      <div ref={host} data-testid="rules-json" />
    </section>
  );
}
