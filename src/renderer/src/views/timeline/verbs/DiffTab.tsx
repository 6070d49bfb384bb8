import { onTabListKeyDown, tabStop } from '../../../components/tabs.js';
import { useMemo, useState, type JSX } from 'react';
import type { TrafficEvent } from '../../../../../shared/api.js';
import { useCassetteAnswers } from '../../../hooks/cassette-answers.js';
import { brief, diffValues, summary, type Change } from '../../../../../shared/json-diff.js';
import { Diff } from '../detail/Changes.js';
import { useTimelineUi, type CompareWith } from '../../../stores/timeline-ui.js';

type Part = 'response' | 'request' | 'stream';
const PART_LABELS: Record<Part, string> = { response: 'Response', request: 'Request', stream: 'Stream' };

/** What the selected exchange is compared with: another exchange, or an answer its proxy's cassette holds. */
export interface Other {
  label: string;
  response?: unknown;
  request?: unknown;
  stream?: unknown;
}

const partOf = (x: { response?: unknown; request?: unknown; stream?: unknown }, part: Part): unknown =>
  part === 'response' ? x.response : part === 'request' ? x.request : x.stream;
/** what differs by nature between two sends of the same request: the JSON-RPC id */
const withoutId = (value: unknown): unknown =>
  value && typeof value === 'object' && !Array.isArray(value) && 'id' in value
    ? { ...(value as Record<string, unknown>), id: '(id)' }
    : value;

function ChangeRow({ change }: { change: Change }): JSX.Element {
  return (
    <li className={`diff-change ${change.kind}`}>
      <span className={`diff-kind ${change.kind}`}>{change.kind}</span>
      <code className="diff-path">{change.at}</code>
      {change.lines ? (
        <pre className="diff-lines" aria-label={`Lines of ${change.at}`}>
          {change.lines.map((line, i) => (
            <span key={i} className={`line ${line.kind}`}>
              {line.kind === 'added' ? '+ ' : line.kind === 'removed' ? '- ' : '  '}
              {line.text}
              {'\n'}
            </span>
          ))}
        </pre>
      ) : (
        <span className="diff-values">
          {change.kind !== 'added' && <span className="before">{brief(change.before)}</span>}
          {change.kind === 'changed' && <span className="arrow"> → </span>}
          {change.kind !== 'removed' && <span className="after">{brief(change.after)}</span>}
        </span>
      )}
    </li>
  );
}

type CassetteAnswers = ReturnType<typeof useCassetteAnswers>;

interface Comparison {
  /** what the exchange is compared with: the other exchange, or the chosen cassette answer (once it came) */
  against?: Other;
  cassette: CassetteAnswers;
  entryIndex: number;
  setEntryIndex(index: number): void;
  parts: Part[];
  shown: Part;
  setPart(part: Part): void;
  left: unknown;
  right: unknown;
  changes: Change[];
  sides: [string, string];
}

/** The two sides of the diff (ids set aside) and their changes, for the part shown. */
function useComparison(
  event: TrafficEvent,
  compareWith: CompareWith | undefined,
  other: Other | undefined,
): Comparison {
  const [part, setPart] = useState<Part>('response');
  const [entryIndex, setEntryIndex] = useState(0);
  const cassette = useCassetteAnswers(event, compareWith?.kind === 'cassette');
  const entry = cassette.entries?.[Math.min(entryIndex, (cassette.entries?.length ?? 1) - 1)];
  const fromCassette = compareWith?.kind === 'cassette';
  const against = useMemo(
    (): Other | undefined =>
      fromCassette
        ? entry && {
            label: `cassette entry ${entry.file}`,
            response: { jsonrpc: '2.0', id: event.request.id, result: entry.result },
            stream: entry.stream ?? [],
          }
        : other,
    [fromCassette, entry, other, event.request.id],
  );
  const parts: Part[] = fromCassette ? ['response', 'stream'] : ['response', 'request', 'stream'];
  const shown = parts.includes(part) ? part : 'response';
  const [left, right] = useMemo(
    () => [against && withoutId(partOf(against, shown)), withoutId(partOf(event, shown))],
    [against, event, shown],
  );
  const changes = useMemo(() => (against ? diffValues(left, right) : []), [against, left, right]);
  const sides = useMemo(
    (): [string, string] => [against?.label ?? '', `#${event.seq} (this exchange)`],
    [against?.label, event.seq],
  );
  return { against, cassette, entryIndex, setEntryIndex, parts, shown, setPart, left, right, changes, sides };
}

/** Diff of the selected exchange with another (or with the cassette's answer): the changes with their paths, then side by side. */
export function DiffTab({
  event,
  compareWith,
  other,
  originalSeq,
}: {
  event: TrafficEvent;
  compareWith: CompareWith | undefined;
  other?: Other;
  originalSeq?: number;
}): JSX.Element {
  const [sideBySide, setSideBySide] = useState(true);
  const comparison = useComparison(event, compareWith, other);
  const { against } = comparison;
  return (
    <div className="diff-tab">
      <CompareChoices seq={event.seq} compareWith={compareWith} originalSeq={originalSeq} />
      {compareWith?.kind === 'cassette' && <CassetteChoice event={event} comparison={comparison} />}
      {!against ? (
        compareWith?.kind !== 'cassette' && (
          <p className="muted small">
            Pick what to compare this exchange with: another exchange (click it in the table), or the cassette&apos;s
            answer.
          </p>
        )
      ) : (
        <>
          <PartTabs seq={event.seq} against={against} comparison={comparison} />
          {comparison.changes.length > 0 && (
            <ul className="diff-changes" aria-label="Changes">
              {comparison.changes.map((c) => (
                <ChangeRow key={`${c.at}:${c.kind}`} change={c} />
              ))}
            </ul>
          )}
          <button
            type="button"
            className="small diff-toggle"
            aria-expanded={sideBySide}
            onClick={() => setSideBySide(!sideBySide)}
          >
            {sideBySide ? 'Hide side by side' : 'Side by side'}
          </button>
          {sideBySide && (
            <Diff
              original={comparison.left}
              changed={comparison.right}
              label={PART_LABELS[comparison.shown]}
              sides={comparison.sides}
            />
          )}
        </>
      )}
    </div>
  );
}

/** What to compare with: the original (after a resend), the cassette's answer, or an exchange picked in the table. */
function CompareChoices(props: {
  seq: number;
  compareWith: CompareWith | undefined;
  originalSeq?: number;
}): JSX.Element {
  const { compare, setPicking, picking } = useTimelineUi();
  const { compareWith, originalSeq } = props;
  return (
    <div className="diff-head">
      <span className="small">
        Compare <strong>#{props.seq}</strong> with
      </span>
      {originalSeq !== undefined && (
        <button
          type="button"
          className={compareWith === undefined ? 'toggle on small' : 'toggle small'}
          onClick={() => compare(undefined)}
        >
          the original #{originalSeq}
        </button>
      )}
      <button
        type="button"
        className={compareWith?.kind === 'cassette' ? 'toggle on small' : 'toggle small'}
        onClick={() => compare({ kind: 'cassette' })}
        title="The answers this proxy's cassette holds for the same key"
      >
        the cassette&apos;s answer
      </button>
      <button
        type="button"
        className={picking ? 'toggle on small' : 'toggle small'}
        onClick={() => setPicking(!picking)}
      >
        {picking ? 'Click an exchange in the table… (Esc)' : 'Another exchange…'}
      </button>
    </div>
  );
}

/** The cassette's answers for the key: why there is none, or which of several recorded ones. */
function CassetteChoice({ event, comparison }: { event: TrafficEvent; comparison: Comparison }): JSX.Element {
  const { cassette, entryIndex, setEntryIndex } = comparison;
  return (
    <>
      {cassette.error && <p className="error small">{cassette.error}</p>}
      {cassette.entries?.length === 0 && (
        <p className="muted small">The cassette holds no answer for this exchange&apos;s key ({event.key}).</p>
      )}
      {(cassette.entries?.length ?? 0) > 1 && (
        <label className="small">
          Recorded answer{' '}
          <select value={entryIndex} onChange={(e) => setEntryIndex(Number(e.target.value))}>
            {cassette.entries!.map((e, i) => (
              <option key={e.file} value={i}>
                {i + 1} of {cassette.entries!.length} ({e.file})
              </option>
            ))}
          </select>
        </label>
      )}
    </>
  );
}

/** The part compared (response, request, stream) as tabs, and the changes in one line. */
function PartTabs({ seq, against, comparison }: { seq: number; against: Other; comparison: Comparison }): JSX.Element {
  const { parts, shown, setPart } = comparison;
  return (
    <div className="diff-parts">
      <div
        className="tl-detail-tabs"
        role="tablist"
        aria-label="Part to compare"
        onKeyDown={(e) => onTabListKeyDown(e, (i) => setPart(parts[i]))}
      >
        {parts.map((p) => (
          <button
            key={p}
            type="button"
            role="tab"
            tabIndex={tabStop(p === shown)}
            aria-selected={p === shown}
            className={p === shown ? 'active' : undefined}
            onClick={() => setPart(p)}
          >
            {PART_LABELS[p]}
          </button>
        ))}
      </div>
      <span className="small" data-testid="diff-summary">
        {against.label} → #{seq}: <strong>{summary(comparison.changes)}</strong>
      </span>
    </div>
  );
}
