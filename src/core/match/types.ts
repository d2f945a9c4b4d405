/**
 * The matcher contract (R8). A hook's `match` is compiled once, at registration, into a
 * `Matcher`; the chain cache asks `matchSubject` per subject and `test` per run only for
 * matchers that need the input (conditions like `Bash(rm *)` and functions).
 */

/** What a hook may give as `match`: a pattern string, or a predicate over subject and input. */
export type MatchSpec<I = unknown> = string | ((subject: string | undefined, input: I) => boolean);

export interface Matcher {
  /** The pattern as written, for traces and `explain`. */
  readonly source: string;
  /** True when it matches everything (omitted, `""`, `"*"`). */
  readonly all: boolean;
  /** True when the subject alone cannot decide (a `Name(pattern)` condition or a function). */
  readonly needsInput: boolean;
  /** True when it decides by the subject's name (names, lists, RegExps, `Name(pattern)`); false for match-all and functions. */
  readonly needsSubject: boolean;
  /** Whether the subject passes the name part; for `needsInput` matchers the input is checked later by `test`. */
  matchSubject(subject: string | undefined): boolean;
  /** The full test; `detail` computes the point's detail string (called at most once, only when needed). */
  test(subject: string | undefined, input: unknown, detail: () => string | undefined): boolean;
}
