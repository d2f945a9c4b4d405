/**
 * Small signal helpers. We link signals by hand instead of `AbortSignal.any` so that every
 * listener we add is removed when the link is disposed (R7: nothing outlives a run). Runs
 * themselves listen to their caller's signal directly (see run-signal.ts).
 */
import { setMaxListeners } from "node:events";

/**
 * A signal that never aborts, shared by runs that have no caller signal and no deadline. Its
 * controller is gone, so an "abort" listener on it could never be called: it is not kept. Kept,
 * every operation or SDK that listens and never unhooks (the MCP SDK's requests do) would pin
 * one closure per call to this process-wide object (R7).
 */
export const neverAborted: AbortSignal = (() => {
  const signal = new AbortController().signal;
  const add = signal.addEventListener.bind(signal) as (type: string, listener: unknown, options?: unknown) => void;
  Object.defineProperty(signal, "addEventListener", {
    value: (type: string, listener: unknown, options?: unknown): void => {
      if (type !== "abort") add(type, listener, options);
    },
  });
  return signal;
})();

/**
 * True for an AbortSignal, or anything that behaves as one (another realm's, a polyfill's).
 * Never throws: a hostile object (a Proxy whose reads throw) is simply not a signal.
 *
 * @example
 * isAbortSignal(new AbortController().signal) // true
 * isAbortSignal({}) // false
 */
export const isAbortSignal = (value: unknown): value is AbortSignal => {
  try {
    return (
      typeof value === "object" &&
      value !== null &&
      typeof (value as AbortSignal).aborted === "boolean" &&
      typeof (value as AbortSignal).addEventListener === "function" &&
      typeof (value as AbortSignal).removeEventListener === "function"
    );
  } catch {
    return false;
  }
};

/**
 * What a value that should have been an AbortSignal was, for a TypeError's message.
 *
 * @example
 * `signal must be an AbortSignal, got ${notASignal({})}`
 */
export const notASignal = (value: unknown): string =>
  value === null
    ? "null"
    : Array.isArray(value)
      ? "an array"
      : typeof value === "object"
        ? "an object without AbortSignal's aborted, addEventListener and removeEventListener"
        : `a ${typeof value}`;

/** The longest delay a Node timer honours (2^31 − 1 ms); a longer one fires at once. */
export const maxTimerMs = 2_147_483_647;

/**
 * True for a deadline a timer can honour: a finite number of ms above 0, up to `maxTimerMs`.
 *
 * @example
 * isTimeoutMs(5000) // true
 * isTimeoutMs(Infinity) // false: the timer would fire at once
 */
export const isTimeoutMs = (ms: unknown): ms is number => typeof ms === "number" && Number.isFinite(ms) && ms > 0 && ms <= maxTimerMs;

/** A child controller aborted when `parent` aborts; `dispose()` unlinks it. */
export interface LinkedController {
  readonly controller: AbortController;
  dispose(): void;
}

/**
 * Create a controller that follows `parent`.
 *
 * @example
 * const link = linkSignal(callerSignal); try { await work(link.controller.signal) } finally { link.dispose() }
 */
export const linkSignal = (parent: AbortSignal | undefined): LinkedController => {
  const controller = new AbortController();
  if (parent === undefined || parent === neverAborted) return { controller, dispose: noop };
  if (parent.aborted) {
    controller.abort(parent.reason);
    return { controller, dispose: noop };
  }
  const onAbort = (): void => controller.abort(parent.reason);
  parent.addEventListener("abort", onAbort, { once: true });
  return { controller, dispose: () => stopListening(parent, onAbort) };
};

/**
 * `linkSignal`, for a signal many runs listen to at once (a turn's, a step's, a sub-agent's): its
 * own signal has no listener limit, so Node does not warn of a leak past ten of them. The parent
 * gets one listener, removed by `dispose`.
 *
 * @example
 * const link = sharedLink(turnSignal); await Promise.all(calls.map((c) => stack.run("toolCall", c, op, { signal: link.controller.signal })))
 */
export const sharedLink = (parent: AbortSignal | undefined): LinkedController => {
  const link = linkSignal(parent);
  setMaxListeners(0, link.controller.signal);
  return link;
};

/**
 * Does nothing: a dispose with nothing to undo, a handler that only keeps a rejection handled.
 *
 * @example
 * promise.catch(noop)
 */
export const noop = (): void => {};

/**
 * Remove an abort listener from a caller's signal. A lookalike (a polyfill) whose
 * `removeEventListener` throws keeps its listener: that is its own affair, and what was being
 * cleaned up must still finish (a run still settles, a turn still returns).
 *
 * @example
 * stopListening(callerSignal, onAbort)
 */
export const stopListening = (signal: AbortSignal | undefined, listener: () => void): void => {
  try {
    signal?.removeEventListener("abort", listener);
  } catch {
    // a lookalike that threw: nothing more to do
  }
};

/**
 * A child controller that follows `parent` and aborts with a `TimeoutError` after `ms`.
 * Why not `AbortSignal.any([parent, AbortSignal.timeout(ms)])`: Node holds a timeout signal
 * only weakly, and inside `any` it can be collected before it fires (nodejs/node#57736), so the
 * deadline silently never comes. Here the timer holds the controller, and `dispose()` clears it.
 *
 * @example
 * const deadline = withDeadline(ctx.signal, 5_000); try { await call(deadline.controller.signal) } finally { deadline.dispose() }
 */
export const withDeadline = (parent: AbortSignal | undefined, ms: number): LinkedController => {
  const link = linkSignal(parent);
  const { controller } = link;
  if (controller.signal.aborted) return link;
  const timer = setTimeout(() => controller.abort(new DOMException(`timed out after ${ms} ms`, "TimeoutError")), ms);
  return {
    controller,
    dispose: () => {
      clearTimeout(timer);
      link.dispose();
    },
  };
};

/**
 * Throw the signal's reason if it has aborted, as `AbortSignal.prototype.throwIfAborted` does,
 * for lookalike signals too (a polyfill's may have no such method, or no reason).
 *
 * @example
 * throwIfAborted(AbortSignal.abort("stop")) // throws "stop"
 */
export const throwIfAborted = (signal: AbortSignal | undefined): void => {
  if (signal?.aborted === true) throw abortReason(signal);
};

/**
 * Why a signal aborted. A native signal always has a reason; a lookalike (a polyfill) may have
 * none, and gets the one a native controller would have given, an `AbortError`.
 *
 * @example
 * abortReason(AbortSignal.abort("stop")) // "stop"
 */
export const abortReason = (signal: AbortSignal): unknown => {
  const reason: unknown = signal.reason;
  return reason === undefined ? new DOMException("This operation was aborted", "AbortError") : reason;
};

/** True for anything with a `then` method (hookable's cross-realm check: not `instanceof Promise`). */
export const isThenable = (value: unknown): value is PromiseLike<unknown> => {
  if (value === null || (typeof value !== "object" && typeof value !== "function")) return false;
  try {
    return typeof (value as { then?: unknown }).then === "function";
  } catch {
    return false; // a throwing `then` getter: not a promise; validation then calls it an invalid action
  }
};

/**
 * `work`, or the signal's abort (rejecting with its reason) if that comes first; the listener is
 * removed either way, and a late rejection of `work` is not left unhandled.
 *
 * @example
 * const verdict = await untilAbort(check(text, info), signal)
 */
export const untilAbort = <T>(work: PromiseLike<T>, signal: AbortSignal): Promise<T> =>
  new Promise((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    work.then(
      (r) => {
        signal.removeEventListener("abort", onAbort);
        resolve(r);
      },
      (e) => {
        signal.removeEventListener("abort", onAbort);
        reject(e);
      },
    );
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
  });
