/**
 * The signal of a run that has a caller signal or a deadline, or of a hook that has a timeout,
 * made only when someone reads it.
 *
 * Why lazily: on Node 20 an `AbortSignal` takes about 2 µs and 900 bytes to make, ten times a
 * whole run with a hook, and most operations and hooks never read their signal. The run listens
 * to its caller's signal itself (one listener, removed when it settles, see `GuardedRun` in
 * stack.ts) and tells this object when it aborts; the controller, if it exists by then, aborts
 * with the same reason, and one made later is made already aborted (R7). A hook's own signal
 * follows its run's the same way, as a watcher, while the hook runs (see invoke.ts).
 *
 * Why a controller of its own rather than the caller's signal: what a hook or an operation
 * leaves listening on the run's signal goes when the run goes, instead of staying on the
 * caller's signal, which may serve a whole session.
 *
 * @example
 * const guard = new RunSignal(); guard.abort("stop"); guard.signal.reason // "stop"
 */
export class RunSignal implements AbortWatcher {
  // Declared and assigned in the constructor, for the reason given on RunContext.
  declare private controller: AbortController | undefined;
  declare private reason: unknown;
  declare private isAborted: boolean;
  /** Told when this aborts: the signals of the hooks running now, a timed hook's wait. */
  declare private watchers: AbortWatcher[] | undefined;

  constructor() {
    this.controller = undefined;
    this.reason = undefined;
    this.isAborted = false;
    this.watchers = undefined;
  }

  /** The signal: made on first read, already aborted if this was. */
  get signal(): AbortSignal {
    if (this.controller === undefined) {
      this.controller = new AbortController();
      if (this.isAborted) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }

  /** Whether this aborted (its signal may not have been made). */
  get aborted(): boolean {
    return this.isAborted;
  }

  /** Abort (the caller's signal, a deadline, a hook's timeout): the signal now or when made, then the watchers. */
  abort(reason: unknown): void {
    if (this.isAborted) return;
    this.isAborted = true;
    this.reason = reason;
    this.controller?.abort(reason);
    const watchers = this.watchers;
    if (watchers === undefined) return;
    this.watchers = undefined;
    for (const watcher of watchers) watcher.abort(reason);
  }

  /** Tell `watcher` when this aborts; if it already has, tell it now. */
  watch(watcher: AbortWatcher): void {
    if (this.isAborted) watcher.abort(this.reason);
    else (this.watchers ??= []).push(watcher);
  }

  /** Stop telling `watcher` (it settled). */
  unwatch(watcher: AbortWatcher): void {
    const watchers = this.watchers;
    if (watchers === undefined) return;
    const at = watchers.lastIndexOf(watcher);
    if (at >= 0) watchers.splice(at, 1);
  }
}

/**
 * What `RunSignal.watch` tells: a lazy signal that follows another, or a wait that ends on abort.
 *
 * @example
 * const watcher: AbortWatcher = { abort: (reason) => console.log("aborted:", reason) }
 */
export interface AbortWatcher {
  abort(reason: unknown): void;
}
