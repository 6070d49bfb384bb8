import { describeMisses, type Difference, type ReplayMiss } from '../shared/cassette/miss.js';

export { CassetteMissingError, UnreachableError } from '../main/engine/errors.js';

/** Options that cannot work together, or a value out of range: thrown by startProxy and wrapTransport before anything starts. */
export class OptionsError extends Error {
  override name = 'OptionsError';
}

/**
 * A strict replay missed: requests the cassette had no answer for. `key`, `closestKey` and `differences` describe
 * the first miss (`differences`: each value that differs from the closest recorded request); `misses` has them all.
 * The message is the miss summary, one line per miss with its closest recorded key.
 */
export class CassetteMissError extends Error {
  override name = 'CassetteMissError';
  readonly key: string;
  readonly closestKey?: string;
  readonly differences: readonly Difference[];

  constructor(
    readonly misses: readonly ReplayMiss[],
    readonly cassette?: string,
  ) {
    super(`${cassette ? `cassette ${cassette}: ` : ''}${describeMisses(misses)}`);
    this.key = misses[0]?.key ?? '';
    this.closestKey = misses[0]?.closest?.key;
    this.differences = misses[0]?.closest?.differences ?? [];
  }
}
