/**
 * The matcher contract (R8). A hook's `match` is compiled once, at registration, into a
 * `Matcher`; the chain cache asks `matchSubject` per subject and `test` per run only for
 * matchers that need the input (conditions like `Bash(rm *)` and functions).
 */

/** A value a `{ metadata }` matcher compares a key with: equal by `===` (`NaN` equals `NaN`). */
export type MetadataValue = string | number | boolean | null;

/**
 * What a `{ metadata: { key: … } }` matcher asks of one key of the run's metadata: a value (equal),
 * a list of values (any of them), or `{ exists: true }` / `{ exists: false }` (present or absent).
 *
 * @example
 * const prod: MetadataCondition = ["prod", "staging"]
 */
export type MetadataCondition = MetadataValue | readonly MetadataValue[] | { readonly exists: boolean };

/**
 * What a function matcher receives besides subject and input: the run's metadata
 * (`RunOptions.metadata`, `ctx.metadata`, `{}` when none was given) and the point's detail (a shell
 * command, a file path, a URL), computed when read.
 *
 * @example
 * const match = (_s: string | undefined, _input: unknown, { metadata }: MatchContext) => metadata.tenant === "acme"
 */
export interface MatchContext {
  readonly metadata: Readonly<Record<string, unknown>>;
  readonly detail: string | undefined;
}

/**
 * A predicate over subject, input and the run's context. Must answer a boolean synchronously.
 *
 * @example
 * const big: MatchFunction<{ size: number }> = (_subject, input) => input.size > 1000
 */
export type MatchFunction<I = unknown> = (subject: string | undefined, input: I, context: MatchContext) => boolean;

/**
 * The object forms of a match:
 * - `{ stepType: "tool" }` (or a list): the run's step type, as the point's `stepType` reads it once
 *   the run has ended (the agent's `step` point: `"tool"`, `"final"` or `"error"`);
 * - `{ metadata: { key: condition } }`: every listed key of the run's metadata satisfies its condition;
 * - `{ all: [...] }`, `{ any: [...] }`, `{ not: m }`: and, or, not over any matches, nested.
 *
 * @example
 * const m: MatchObject = { all: ["Bash(git push*)", { metadata: { env: "prod" } }, { not: { metadata: { oncall: true } } }] }
 */
export type MatchObject<I = unknown> = StepTypeMatch | MetadataMatch | AllMatch<I> | AnyMatch<I> | NotMatch<I>;

// Each object form has exactly one key: the others are typed `never`, so a second key does not compile.

/** `{ stepType: "tool" }`: the run's step type is this one (or one of these). */
export interface StepTypeMatch {
  readonly stepType: string | readonly string[];
  readonly metadata?: never;
  readonly all?: never;
  readonly any?: never;
  readonly not?: never;
}

/** `{ metadata: { key: condition } }`: every listed key of the run's metadata satisfies its condition. */
export interface MetadataMatch {
  readonly metadata: { readonly [key: string]: MetadataCondition };
  readonly stepType?: never;
  readonly all?: never;
  readonly any?: never;
  readonly not?: never;
}

/** `{ all: [...] }`: every match in the list matches. */
export interface AllMatch<I = unknown> {
  readonly all: readonly MatchSpec<I>[];
  readonly stepType?: never;
  readonly metadata?: never;
  readonly any?: never;
  readonly not?: never;
}

/** `{ any: [...] }`: some match in the list matches. */
export interface AnyMatch<I = unknown> {
  readonly any: readonly MatchSpec<I>[];
  readonly stepType?: never;
  readonly metadata?: never;
  readonly all?: never;
  readonly not?: never;
}

/** `{ not: m }`: `m` does not match. */
export interface NotMatch<I = unknown> {
  readonly not: MatchSpec<I>;
  readonly stepType?: never;
  readonly metadata?: never;
  readonly all?: never;
  readonly any?: never;
}

/**
 * What a hook may give as `match`: a pattern string, a predicate over subject, input and context, an
 * object form (step type, metadata, `all`/`any`/`not`), or a `Matcher` already compiled by
 * `compileMatcher` (to give it options, such as where paths are read from).
 *
 * @example
 * const m: MatchSpec = { any: ["Write", "Edit(src/**)"] }
 */
export type MatchSpec<I = unknown> = string | MatchFunction<I> | MatchObject<I> | Matcher;

/** A compiled `match`: tests a run's subject and input, and says what it was written as. */
export interface Matcher {
  /** The pattern as written, for traces and `explain`. */
  readonly source: string;
  /** True when it matches everything (omitted, `""`, `"*"`). */
  readonly all: boolean;
  /**
   * True when the subject alone cannot decide (a `Name(pattern)` condition, a function, metadata, a
   * step type): `test` is called per run. False means `matchSubject` is the whole answer.
   */
  readonly needsInput: boolean;
  /** True when it decides by the subject's name (names, lists, RegExps, `Name(pattern)`); false for match-all and functions. */
  readonly needsSubject: boolean;
  /**
   * True when it reads the run's step type, which is known only once the run has ended: it is tested
   * on the way out (before `after`/`recover`, and for observers), never on the way in.
   */
  readonly needsOutcome?: boolean;
  /**
   * Whether the subject passes the name part; for `needsInput` matchers the rest is checked later by
   * `test`. It never says no when `test` could say yes.
   */
  matchSubject(subject: string | undefined): boolean;
  /**
   * The full test; `detail` computes the point's detail string (called at most once, only when needed).
   * `metadata` is the run's (`RunOptions.metadata`): a path condition reads the call's working directory
   * from `metadata.cwd`. `stepType` reads the run's step type (only given on the way out).
   */
  test(
    subject: string | undefined,
    input: unknown,
    detail: () => string | undefined,
    metadata?: Readonly<Record<string, unknown>>,
    stepType?: () => string | undefined,
  ): boolean;
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
