/**
 * Which tools a path rule covers. As Claude Code's permission rules do, `Read(…)` applies to every
 * built-in tool that reads files and `Edit(…)` to every one that writes them; `Write(…)` is read
 * as `Edit(…)`. Any other name in a rule covers that tool alone.
 */

/** Tools that read files (or list and search them). */
export const READ_TOOLS: ReadonlySet<string> = new Set(["Read", "Grep", "Glob", "LS", "NotebookRead"]);

/** Tools that write files. */
export const WRITE_TOOLS: ReadonlySet<string> = new Set(["Edit", "Write", "MultiEdit", "NotebookEdit"]);

/**
 * Tools whose detail is a search rather than one file: Grep, Glob and LS look at everything under a
 * directory, narrowed by a file pattern. Their detail (from `toolDetails`) is a glob: the directory,
 * escaped, then the pattern.
 */
export const SEARCH_TOOLS: ReadonlySet<string> = new Set(["Grep", "Glob", "LS"]);

/**
 * The tools a rule named `name` covers when it has a path condition: the whole family for `Read`,
 * `Edit` and `Write`, else just `name`.
 *
 * @example
 * [...coveredTools("Read")] // ["Read", "Grep", "Glob", "LS", "NotebookRead"]
 * [...coveredTools("Grep")] // ["Grep"]
 */
export const coveredTools = (name: string): ReadonlySet<string> =>
  name === "Read" ? READ_TOOLS : name === "Edit" || name === "Write" ? WRITE_TOOLS : new Set([name]);
