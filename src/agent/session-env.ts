/**
 * The environment a session's start hooks exported for later commands (Claude Code's
 * `CLAUDE_ENV_FILE`), kept from each `sessionStart` run: at the session's start, and again
 * after a compaction (source `compact`), when hooks may export more.
 */
import type { SessionShared } from "./env.ts";
import type { SessionInfo } from "./types.ts";

/**
 * The variables a `sessionStart` run says its hooks exported (`SessionInfo.env`), kept for the
 * session's tools; an outcome without them leaves what was there.
 *
 * @example
 * keepSessionEnv(shared, await stack.run("sessionStart", start, op, run))
 */
export const keepSessionEnv = (shared: SessionShared, outcome: { readonly _tag: string; readonly value?: unknown }): void => {
  if (outcome._tag !== "Completed") return;
  const info = outcome.value as Partial<SessionInfo> | undefined;
  if (info?.env !== undefined && typeof info.env === "object" && info.env !== null) shared.env = info.env;
  if (typeof info?.envFile === "string") shared.envFile = info.envFile;
};
