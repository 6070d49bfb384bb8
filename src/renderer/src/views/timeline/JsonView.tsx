import { useEffect, useRef, useState, type JSX } from 'react'
import { EditorView, minimalSetup } from 'codemirror'
import { EditorState } from '@codemirror/state'
import { json } from '@codemirror/lang-json'

/** Read-only, syntax-highlighted JSON (CodeMirror 6) with a copy button. */
export function JsonView({ value, label }: { value: unknown; label: string }): JSX.Element {
  const host = useRef<HTMLDivElement>(null)
  const text = JSON.stringify(value, null, 2) ?? 'undefined'
  const [copied, setCopied] = useState<string>()

  useEffect(() => {
    if (!host.current) return
    const view = new EditorView({
      parent: host.current,
      state: EditorState.create({
        doc: text,
        extensions: [minimalSetup, json(), EditorState.readOnly.of(true), EditorView.editable.of(false), EditorView.lineWrapping],
      }),
    })
    return () => view.destroy()
  }, [text])

  function copy(): void {
    navigator.clipboard
      .writeText(text)
      .then(() => setCopied('copied'))
      .catch(() => setCopied('copy failed: select the text instead'))
  }

  return (
    <section className="tl-json" aria-label={label}>
      <header>
        <h4>{label}</h4>
        <button type="button" className="small" onClick={copy} aria-label={`Copy ${label}`}>
          Copy
        </button>
        {copied && <span className="muted small">{copied}</span>}
      </header>
      <div ref={host} className="tl-cm" />
    </section>
  )
}
