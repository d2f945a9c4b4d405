/**
 * Errors of the streaming path.
 */
import { AgentOnionError, describe } from "../../core/errors.ts";
import type { ModelResponse } from "../types.ts";

/**
 * The provider's stream failed part-way (it threw, or sent an `error` part). `partial` is what
 * had arrived, with usage (reported or estimated), so `around`/`recover` hooks and metrics can
 * still account for it.
 *
 * @example
 * recover: (error) => (error instanceof ModelStreamError ? Replace(error.partial) : Continue)
 */
export class ModelStreamError extends AgentOnionError {
  override name = "ModelStreamError";
  constructor(
    override readonly cause: unknown,
    readonly partial: ModelResponse,
  ) {
    super(`model stream failed after ${partial.text.length} characters: ${describe(cause)}`);
  }
}

/**
 * A part transform registered by a hook threw; the stream fails and names the hook.
 *
 * @example
 * error instanceof StreamHookError && error.hook // "redact"
 */
export class StreamHookError extends AgentOnionError {
  override name = "StreamHookError";
  constructor(
    readonly hook: string,
    override readonly cause: unknown,
  ) {
    super(`stream transform of hook "${hook}" threw: ${describe(cause)}`);
  }
}
