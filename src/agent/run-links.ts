/**
 * Which runs a sub-agent's run is part of, as the engine knows it: a link only the agent's own
 * code can make. Per-run guards charge a sub-agent's work to the runs it is part of, so the link
 * must not come from what a caller can write: `metadata.parentRunIds` is for people to read, and
 * anyone who knows a run's id could put it there. The link is kept beside the run's metadata
 * object, in a map no caller can reach, and the metadata object is the capability: only code that
 * holds a sub-agent run's own metadata (its hooks) can start a run counted against its parents.
 */

/** The enclosing run ids of each sub-agent run's metadata object, outermost first. */
const links = new WeakMap<object, readonly string[]>();

/**
 * The run ids the run with this `metadata` is part of, outermost first, as its sub-agent tool
 * recorded them; none for a run of its own, whatever its `metadata.parentRunIds` says.
 *
 * @example
 * enclosingRunIds(ctx.metadata) // ["s1#1"] in a sub-agent started by run "s1#1"; [] elsewhere
 */
export const enclosingRunIds = (metadata: object | undefined): readonly string[] =>
  (metadata === undefined ? undefined : links.get(metadata)) ?? [];

/**
 * Record that the run with `metadata` (a fresh object, made by the sub-agent tool) is part of
 * the runs `ids`, outermost first; returns `metadata`.
 *
 * @example
 * const metadata = linkRuns({ ...parent.metadata }, [...enclosingRunIds(parent.metadata), parentRunId])
 */
export const linkRuns = <T extends object>(metadata: T, ids: readonly string[]): T => {
  links.set(metadata, Object.freeze([...ids]));
  return metadata;
};
