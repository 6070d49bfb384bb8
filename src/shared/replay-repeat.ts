/** What replay answers once repeated identical requests have used every recorded answer (`--repeat`, `repeat`). */
export const REPEAT_POLICIES = ['last', 'cycle', 'error'] as const;
export type RepeatPolicy = (typeof REPEAT_POLICIES)[number];
