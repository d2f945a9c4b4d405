/**
 * What an external hook answered, read but not yet interpreted: the shape every executor's
 * reading produces (a command's exit code and stdout, an HTTP body, a model's verdict).
 */
import type { HookOutput } from "./schemas.ts";

/** What an external hook answered, before it is turned into a decision. */
export interface HookAnswer {
  /** A blocking answer's own text (exit 2's stderr, a verdict's reason); the reason of a JSON blocking decision wins over it. */
  readonly block?: string;
  readonly output?: HookOutput;
  /** Plain (non-JSON) stdout, cleaned and capped. */
  readonly text?: string;
  /** A prompt hook judged a Stop condition impossible: let the stop happen. */
  readonly impossible?: boolean;
  /** Parts of the answer that were not read, each with why: fields Claude Code ignores here, malformed values that decide nothing. */
  readonly ignored?: readonly string[];
}
