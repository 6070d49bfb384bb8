import { Fragment, type JSX } from 'react';
import { codePointLabel, describeChar, nameParts } from '../models/visible-text.js';
import './name.css';

/**
 * A name from the wire (a tool, a method, a client, a key), isolated from the text around it (<bdi>) and with every
 * bidi control or invisible character shown as a mark naming it: `evil‮gnp.exe` shows as evil[U+202E]gnp.exe.
 */
export function Name({ value, className }: { value: string; className?: string }): JSX.Element {
  const parts = nameParts(value);
  if (parts.length === 1 && 'text' in parts[0]) return <bdi className={className}>{value}</bdi>;
  return (
    <bdi className={className ? `${className} has-hidden` : 'has-hidden'}>
      {parts.map((part, i) =>
        'text' in part ? (
          <Fragment key={i}>{part.text}</Fragment>
        ) : (
          <span key={i} className="hidden-char" title={describeChar(part.hidden)}>
            {codePointLabel(part.hidden)}
          </span>
        ),
      )}
    </bdi>
  );
}
