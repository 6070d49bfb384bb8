/**
 * Issue 33 item 1: an `application/json` answer is read as it comes when it is newline-delimited messages (a listen
 * stream as chunked JSON lines), and whole at its end when it is one document — pretty-printed or not, however it
 * is split across chunks.
 */
import { describe, expect, it } from 'vitest';
import { ResponseTap } from '../../src/main/engine/http/response-tap.js';

/** Feeds the chunks one by one; answers the messages read after each chunk, then after the end. */
function readAsItComes(chunks: string[]): { after: unknown[][]; atEnd: unknown[]; framing: unknown } {
  const messages: unknown[] = [];
  const tap = new ResponseTap('application/json', (m) => void messages.push(m), false);
  const after = chunks.map((chunk) => {
    tap.push(Buffer.from(chunk));
    return [...messages];
  });
  tap.end();
  return { after, atEnd: messages, framing: tap.framing() };
}

const ack = { jsonrpc: '2.0', method: 'notifications/subscriptions/acknowledged', params: {} };
const changed = { jsonrpc: '2.0', method: 'notifications/tools/list_changed', params: {} };
const answer = { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'a\nb' }] } };

describe('ResponseTap on application/json', () => {
  it('newline-delimited messages: each is read once its line ends, also a line split across chunks', () => {
    const text = `${JSON.stringify(ack)}\n${JSON.stringify(changed)}\n`;
    const cut = text.indexOf('tools/list');
    const { after, atEnd, framing } = readAsItComes([text.slice(0, cut), text.slice(cut, -1), '\n']);
    expect(after).toEqual([[ack], [ack], [ack, changed]]);
    expect(atEnd).toEqual([ack, changed]);
    expect(framing).toEqual({ type: 'json', lines: true });
  });

  it('a last line without its line break is read at the end', () => {
    const { after, atEnd } = readAsItComes([`${JSON.stringify(ack)}\n${JSON.stringify(answer)}`]);
    expect(after).toEqual([[ack]]);
    expect(atEnd).toEqual([ack, answer]);
  });

  it('one pretty-printed document split across chunks is read whole at its end (its first line is no message)', () => {
    const text = JSON.stringify(answer, null, 2);
    const third = Math.ceil(text.length / 3);
    const { after, atEnd, framing } = readAsItComes([
      text.slice(0, third),
      text.slice(third, 2 * third),
      text.slice(2 * third),
    ]);
    expect(after).toEqual([[], [], []]);
    expect(atEnd).toEqual([answer]);
    expect(framing).toEqual({ type: 'json' });
  });

  it('one compact document split across chunks, no line break: read at its end', () => {
    const text = JSON.stringify([answer, { ...answer, id: 2 }]);
    const { after, atEnd, framing } = readAsItComes([text.slice(0, 10), text.slice(10)]);
    expect(after).toEqual([[], []]);
    expect(atEnd).toEqual([answer, { ...answer, id: 2 }]);
    expect(framing).toEqual({ type: 'json' });
  });
});
