import { useEffect, useRef, type JSX } from 'react';
import { MergeView } from '@codemirror/merge';
import { EditorView, minimalSetup } from 'codemirror';
import { EditorState } from '@codemirror/state';
import { json } from '@codemirror/lang-json';
import type { TrafficEvent } from '../../../../../shared/api.js';
import { jsonHighlighting } from '../../../components/json-highlight.js';

const pretty = (value: unknown): string => JSON.stringify(value, null, 2) ?? '';

/**
 * Two values side by side (CodeMirror's merge view: changed lines and words marked, unchanged folded): an original and
 * its rewrite, or any two exchanges (`sides` names them).
 */
export function Diff({
  original,
  changed,
  label,
  sides,
}: {
  original: unknown;
  changed: unknown;
  label: string;
  sides?: [string, string];
}): JSX.Element {
  const host = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const extensions = [
      minimalSetup,
      json(),
      jsonHighlighting,
      EditorState.readOnly.of(true),
      EditorView.editable.of(false),
      EditorView.lineWrapping,
    ];
    const view = new MergeView({
      a: {
        doc: pretty(original),
        extensions: [
          ...extensions,
          EditorView.contentAttributes.of({ 'aria-label': `${label}: ${sides?.[0] ?? 'original'}`, tabindex: '0' }),
        ],
      },
      b: {
        doc: pretty(changed),
        extensions: [
          ...extensions,
          EditorView.contentAttributes.of({
            'aria-label': `${label}: ${sides?.[1] ?? 'as the client got it'}`,
            tabindex: '0',
          }),
        ],
      },
      parent: host.current!,
      collapseUnchanged: { margin: 3, minSize: 6 },
      gutter: true,
    });
    return () => view.destroy();
  }, [original, changed, label, sides]);
  return (
    <section className="diff" aria-label={label}>
      <div className="diff-heads small muted">
        <span>{sides?.[0] ?? 'original'}</span>
        <span>{sides?.[1] ?? `as the client ${label.startsWith('Request') ? 'sent it upstream' : 'got it'}`}</span>
      </div>
      <div ref={host} className="diff-host" />
    </section>
  );
}

/** What a rule or a breakpoint changed: the request (arguments edited at a breakpoint) and/or the answer. */
export function Changes({ event }: { event: TrafficEvent }): JSX.Element {
  const original = event.original;
  if (event.behavior === 'override' && !original?.response) {
    return (
      <div>
        <p className="small">
          Answered by an <strong>override</strong> rule: the call never reached the{' '}
          {event.source === 'cache' ? 'cassette' : 'upstream'}, so there is no original answer.
        </p>
        {original?.request && <Diff original={original.request} changed={event.request} label="Request" />}
      </div>
    );
  }
  if (!original) return <p className="muted small">Nothing was changed: the client got what the source answered.</p>;
  return (
    <div className="changes">
      {original.request && <Diff original={original.request} changed={event.request} label="Request" />}
      {original.response && <Diff original={original.response} changed={event.response} label="Response" />}
    </div>
  );
}
