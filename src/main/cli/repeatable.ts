import { Option } from 'commander';

/** commander's argParser for a flag given several times: its values in order. */
export const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

/** --result-hash-ignore, the same for the proxy and verify (a tool result's hash must be computed alike). */
export const resultHashIgnoreOption = (): Option =>
  new Option(
    '--result-hash-ignore <path>',
    'dot path deleted before hashing (relative to --result-hash-path); repeatable',
  ).argParser(collect);
