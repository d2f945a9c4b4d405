/**
 * The matcher contract (R8). A hook's `match` is compiled once, at registration, into a
 * `Matcher`; the chain cache asks `matchSubject` per subject and `test` per run only for
 * matchers that need the input (conditions like `Bash(rm *)` and functions).
 */

/**
 * What a hook may give as `match`: a pattern string, a predicate over subject and input, or a
 * `Matcher` already compiled by `compileMatcher` (to give it options, such as where paths are read from).
 */
export type MatchSpec<I = unknown> = string | ((subject: string | undefined, input: I) => boolean) | Matcher;

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
  /**
   * The full test; `detail` computes the point's detail string (called at most once, only when needed).
   * `metadata` is the run's (`RunOptions.metadata`): a path condition reads the call's working directory from `metadata.cwd`.
   */
  test(subject: string | undefined, input: unknown, detail: () => string | undefined, metadata?: Readonly<Record<string, unknown>>): boolean;
}

/**
 * How path conditions (`Read(…)`, `Edit(src/**)`, any `Name(path glob)`) read paths. Every field is optional.
 *
 * @example
 * compileMatcher("Edit(src/**)", "lint", { paths: { projectDir: "/home/u/proj", symlinks: true } })
 */
export interface PathOptions {
  /**
   * The working directory relative paths in tool calls are resolved against, when the run's
   * `metadata.cwd` does not give one. Default: `process.cwd()` at the time of the call.
   */
  readonly cwd?: string;
  /**
   * The directory relative rules (`src/**`, `./x`, `/x`) are read against. Default: the
   * `CLAUDE_PROJECT_DIR` environment variable, else `cwd`, else `process.cwd()` when the rule is compiled.
   */
  readonly projectDir?: string;
  /** The home directory, for `~` in rules and paths. Default: `os.homedir()`. */
  readonly home?: string;
  /**
   * Also match each path with the symbolic links of its longest existing prefix resolved (a deny
   * matches either form, an allow needs both). Default: true.
   */
  readonly symlinks?: boolean;
  /** Compare paths and rules ignoring case. Default: true on macOS and Windows, false elsewhere. */
  readonly caseInsensitive?: boolean;
  /**
   * Read a search without a file pattern (`Grep` over a directory, `LS`) as everything under its
   * directory, so a deny rule on any file in it refuses the search. Default: false (the directory is checked).
   */
  readonly searchContents?: boolean;
}

/**
 * Options of `compileMatcher`.
 *
 * @example
 * const options: MatchOptions = { paths: { projectDir: "/home/u/proj" } }
 */
export interface MatchOptions {
  /** How path conditions read paths. */
  readonly paths?: PathOptions;
}
