/**
 * The signal of a run that has a caller signal or a deadline, made only when someone reads it.
 *
 * Why lazily: on Node 20 an `AbortSignal` takes about 3 µs and 900 bytes to make, ten times a
 * whole run with a hook, and most operations and hooks of a run never read their signal. The
 * run listens to its caller's signal itself (one listener, removed when it settles, see
 * `Stack.runGuarded`) and tells this object when it aborts; the controller, if it exists by
 * then, aborts with the same reason, and one made later is made already aborted (R7).
 *
 * Why a controller of its own rather than the caller's signal: what a hook or an operation
 * leaves listening on the run's signal goes when the run goes, instead of staying on the
 * caller's signal, which may serve a whole session.
 *
 * @example
 * const guard = new RunSignal(); guard.abort("stop"); guard.signal.reason // "stop"
 */
export class RunSignal {
  // Declared and assigned in the constructor, for the reason given on RunContext.
  declare private controller: AbortController | undefined;
  declare private reason: unknown;
  declare private aborted: boolean;

  constructor() {
    this.controller = undefined;
    this.reason = undefined;
    this.aborted = false;
  }

  /** The run's signal: made on first read, already aborted if the run was. */
  get signal(): AbortSignal {
    if (this.controller === undefined) {
      this.controller = new AbortController();
      if (this.aborted) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }

  /** The run was aborted (its caller's signal or its deadline): so is its signal, now or when made. */
  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.controller?.abort(reason);
  }
}
