/**
 * Why an external hook failed. A hook function throws an `ExecutorError`; the core wraps it in
 * a `HookError` naming hook, point and phase and applies R6, while `failure` keeps the precise
 * reason for logs and tests.
 */
import { AgentOnionError, type HookFailureKind } from "../core/errors.ts";
import type { HookAnswer } from "./hook-answer.ts";

/** What went wrong outside the process. */
export type ExecutorFailure =
  | "spawn" // the process could not start (ENOENT, EACCES, bad cwd)
  | "exit-code" // an exit code other than 0 and 2, with no readable JSON
  | "signal" // the process was killed by a signal we did not send
  | "timeout" // the hook's own deadline passed; the process tree was killed
  | "aborted" // the run's signal aborted it
  | "output-too-large" // stdout or a response body passed its cap
  | "invalid-utf8" // stdout was not valid UTF-8
  | "invalid-json" // stdout looked like JSON (or had to be) and did not parse
  | "unreadable" // stdout held something other than one JSON object where an answer must be one (text around it, escapes)
  | "schema" // the JSON parsed but had unknown or malformed fields
  | "input" // the event could not be serialised (BigInt, cycles, too big)
  | "http-status" // a non-2xx answer, or a redirect
  | "network" // connection refused, reset, DNS failure
  | "blocked-address" // the SSRF guard refused an address
  | "config" // a header or URL that cannot be sent safely
  | "model" // the provider call failed
  | "tool-error" // an MCP tool hook's server is not connected, or its tool answered an error
  | "cannot-block"; // a blocking answer where nothing can be blocked (observation points, R2)

/**
 * The precise cause of an external hook failure.
 *
 * @example
 * new ExecutorError("exit-code", "exited with code 1: boom").message // "exited with code 1: boom"
 */
export class ExecutorError extends AgentOnionError {
  override name = "ExecutorError";
  /** What the hook said that could be read, when only part of its answer could (its context, its message). */
  readonly partial: HookAnswer | undefined;
  constructor(
    readonly failure: ExecutorFailure,
    message: string,
    options?: { cause?: unknown; partial?: HookAnswer },
  ) {
    super(message, options?.cause !== undefined ? { cause: options.cause } : undefined);
    this.partial = options?.partial;
  }

  /** The R6 failure kind this corresponds to. */
  get hookFailureKind(): HookFailureKind {
    return this.failure === "timeout"
      ? "timeout"
      : this.failure === "aborted"
        ? "aborted"
        : this.failure === "schema" || this.failure === "invalid-json" || this.failure === "invalid-utf8" || this.failure === "unreadable"
          ? "invalid-action"
          : "threw";
  }
}
