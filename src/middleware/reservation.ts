/**
 * A reservation that cannot outlive its call, for `budget`, `rateLimit` and `callLimit`:
 * - it is taken with a short lease (`leaseMs`) and renewed every third of it while the call runs,
 *   so the hold of a process that died, hung or lost its connection is returned within a lease;
 * - a `reserve` that got no answer may still run on the server later (after a stall, from the
 *   socket's buffer): it is released at once, and Redis runs that release right after the late
 *   reserve, as commands of one connection run in order;
 * - a `settle` or `release` that got no answer is retried in the background for `retryMs` (a
 *   settle counts once however often it is repeated, see `StateStore.settle`), so spend is neither
 *   lost nor counted twice across a store fault. `stack.flush()` waits for these retries;
 * - it ends once: the first `settle` or `release` ends it, and a later one does nothing. A hook
 *   keeps the holds it has not ended in its run's slot (`OpenHolds`), so that its `onSettled` can
 *   end those a run left open (the caller aborted while the call hung, and the hook's `next()`
 *   never returned).
 */
import { contextKey, type ContextKey, type HookContext } from "../core/context.ts";
import { StateStoreError, type Admission, type SetOptions } from "../core/state.ts";

/** How long a reservation lives without renewal by default, in ms: a few times a store's timeout, far below a model call. */
export const defaultLeaseMs = 10_000;
/** How long a lost settle or release is retried by default, in ms (well within `settledIdsKeptMs`). */
export const defaultRetryMs = 30_000;

/** Whether a failed store operation may have run anyway: yes unless the store says it did not. */
const mayHaveRun = (error: unknown): boolean => !(error instanceof StateStoreError) || error.mayHaveRun;

/** What a reservation needs besides its key and id. */
export interface ReservationSettings {
  /** Lease of the hold while its call runs, in ms; renewed every third of it. */
  readonly leaseMs: number;
  /** How long to retry a settle or release whose answer was lost, in ms (0: try once). */
  readonly retryMs: number;
  /** Told once a settle or release is given up (the hold then expires with its lease). */
  readonly onGiveUp: (error: unknown, what: "settle" | "release") => void;
  /** Renew the lease while the call runs (default true); false for a hold that is to last `leaseMs` from its start. */
  readonly renew?: boolean;
}

/** The holds one hook took in one run and has not ended yet: a slot per hook (see `openHolds`). */
export type OpenHolds = ContextKey<Set<Reservation>>;

/**
 * A slot for the holds of the hook `name`: one per middleware instance, made when it is.
 *
 * @example
 * const holds = openHolds("budget") // Reservation.take(ctx, key, id, 500, limit, settings, holds)
 */
export const openHolds = (name: string): OpenHolds => contextKey<Set<Reservation>>(`${name}.holds`);

/**
 * End, with `end`, every hold of `holds` that this run has left open (for an `onSettled`).
 *
 * @example
 * onSettled: (outcome, _input, ctx) => endOpen(ctx, holds, (hold) => hold.release())
 */
export const endOpen = async (ctx: HookContext<any>, holds: OpenHolds, end: (hold: Reservation) => Promise<void>): Promise<void> => {
  const open = ctx.local(holds);
  if (open !== undefined && open.size > 0) await Promise.all([...open].map(end));
};

/**
 * A live hold on `key` under `id`, renewed until it is settled, released or kept.
 *
 * @example
 * const { admission, hold } = await Reservation.take(ctx, key, id, 500, 10_000, settings);
 * if (hold) try { await call(); await hold.settle(420); } catch { await hold.release(); }
 */
export class Reservation {
  #timer: ReturnType<typeof setTimeout> | undefined;
  #done = false;

  private constructor(
    private readonly ctx: HookContext<any>,
    readonly key: string,
    readonly id: string,
    private readonly settings: ReservationSettings,
    private readonly holds: OpenHolds | undefined,
  ) {
    if (holds !== undefined) (ctx.local(holds) ?? ctx.local(holds, new Set())).add(this);
    this.#schedule();
  }

  /**
   * Reserve `amount` against `limit` with a lease; the hold, when admitted, renews itself until it
   * ends. A reserve that failed but may have run is released in the background.
   *
   * `holds`, when given, keeps the hold in the run's slot until it ends (see `endOpen`).
   *
   * @example
   * const { admission, hold } = await Reservation.take(ctx, "budget:global", randomUUID(), 500, 10_000, settings);
   */
  static async take(
    ctx: HookContext<any>,
    key: string,
    id: string,
    amount: number,
    limit: number,
    settings: ReservationSettings,
    holds?: OpenHolds,
  ): Promise<{ admission: Admission; hold?: Reservation }> {
    let admission: Admission;
    try {
      admission = await ctx.store.reserve(key, id, amount, limit, settings.leaseMs);
    } catch (error) {
      if (mayHaveRun(error)) ctx.waitUntil(retrying(settings, "release", () => ctx.store.release(key, id)));
      throw error;
    }
    return admission.ok ? { admission, hold: new Reservation(ctx, key, id, settings, holds) } : { admission };
  }

  /**
   * `take` on each of `keys` in turn (a run-scoped limit: the run's own key and those of the runs
   * it is part of), all under `id`: admitted only when every key admits it; the holds already
   * taken are released when one refuses or fails. `admission` is the refusing key's, or the last's.
   *
   * @example
   * const { admission, holds } = await Reservation.takeAll(ctx, ["budget:run:outer", "budget:run:inner"], id, 500, 10_000, settings);
   */
  static async takeAll(
    ctx: HookContext<any>,
    keys: readonly string[],
    id: string,
    amount: number,
    limit: number,
    settings: ReservationSettings,
    holds?: OpenHolds,
  ): Promise<{ admission: Admission; holds?: Holds }> {
    const taken: Reservation[] = [];
    let admission: Admission | undefined;
    try {
      for (const key of keys) {
        const one = await Reservation.take(ctx, key, id, amount, limit, settings, holds);
        admission = one.admission;
        if (one.hold === undefined) {
          await Promise.all(taken.map((hold) => hold.release()));
          return { admission };
        }
        taken.push(one.hold);
      }
    } catch (error) {
      await Promise.all(taken.map((hold) => hold.release()));
      throw error;
    }
    if (admission === undefined) throw new TypeError("Reservation.takeAll: no key to reserve on");
    return { admission, holds: new Holds(taken) };
  }

  /** True once it was settled or released. */
  get ended(): boolean {
    return this.#done;
  }

  /**
   * Turn the hold into settled spend of `actual`. The first attempt is awaited; when it fails it is
   * retried in the background and this resolves, so bookkeeping never fails the call. Nothing
   * when the hold has ended already.
   *
   * @example
   * await hold.settle(420, { ttlMs: 86_400_000 })
   */
  settle(actual: number, options: SetOptions = {}): Promise<void> {
    return this.#end("settle", () => this.ctx.store.settle(this.key, this.id, actual, options));
  }

  /**
   * Drop the hold without spending, the same way as `settle`.
   *
   * @example
   * await hold.release()
   */
  release(): Promise<void> {
    return this.#end("release", () => this.ctx.store.release(this.key, this.id));
  }

  async #end(what: "settle" | "release", operation: () => Promise<unknown>): Promise<void> {
    if (this.#done) return;
    this.#stop();
    if (this.holds !== undefined) this.ctx.local(this.holds)?.delete(this);
    try {
      await operation();
    } catch (error) {
      this.ctx.waitUntil(retrying(this.settings, what, operation, error));
    }
  }

  #stop(): void {
    this.#done = true;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /** Renew every third of the lease; a renewal that finds the hold gone stops, one that fails tries again. */
  #schedule(): void {
    if (this.#done || this.settings.renew === false) return;
    this.#timer = setTimeout(
      () => {
        this.#timer = undefined;
        this.ctx.store.renew(this.key, this.id, this.settings.leaseMs).then(
          (live) => {
            if (live) this.#schedule();
          },
          () => this.#schedule(),
        );
      },
      Math.max(1, Math.floor(this.settings.leaseMs / 3)),
    );
    // A call under way keeps the process alive by itself; its lease must not.
    this.#timer.unref?.();
  }
}

/**
 * The holds of one call on several keys (see `Reservation.takeAll`), settled or released together.
 *
 * @example
 * const { holds } = await Reservation.takeAll(ctx, keys, id, 1, 5, settings); await holds?.settle(1)
 */
export class Holds {
  constructor(readonly each: readonly Reservation[]) {}

  /** Settle every hold with `actual` (see `Reservation.settle`). */
  async settle(actual: number, options: SetOptions = {}): Promise<void> {
    await Promise.all(this.each.map((hold) => hold.settle(actual, options)));
  }

  /** Release every hold (see `Reservation.release`). */
  async release(): Promise<void> {
    await Promise.all(this.each.map((hold) => hold.release()));
  }
}

/**
 * Retry `operation` until it answers or `retryMs` has passed since now, waiting 100 ms, then twice
 * as long each time up to 2 s; then tell `onGiveUp` with the last error.
 */
const retrying = async (
  settings: ReservationSettings,
  what: "settle" | "release",
  operation: () => Promise<unknown>,
  first?: unknown,
): Promise<void> => {
  const deadline = performance.now() + settings.retryMs;
  let error: unknown = first;
  let wait = 100;
  for (let attempt = first === undefined ? 0 : 1; ; attempt++) {
    if (attempt > 0) {
      if (performance.now() + wait > deadline) break;
      await new Promise((resolve) => setTimeout(resolve, wait));
      wait = Math.min(wait * 2, 2_000);
    }
    try {
      await operation();
      return;
    } catch (e) {
      error = e;
      // A refusal of what was asked (a TypeError, a RangeError) is the same the next time.
      if (!(e instanceof StateStoreError)) break;
    }
  }
  settings.onGiveUp(error, what);
};
