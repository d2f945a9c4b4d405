/**
 * Errors of the shared stores. They extend `StateStoreError` (core), so a hook can catch every
 * store failure without importing a store, and fail closed on it.
 */
import { StateStoreError } from "../core/state.ts";

/**
 * The store's server could not be reached or did not answer in time. A command that timed out may
 * still have run, so the state is unknown: gates should refuse (fail closed), and a hold left
 * behind expires with its TTL.
 *
 * @example
 * try { await store.reserve("budget", id, 500, 10_000, 60_000); }
 * catch (error) { if (error instanceof StoreUnavailableError) return Reject("budget store unavailable"); throw error; }
 */
export class StoreUnavailableError extends StateStoreError {
  override name = "StoreUnavailableError";
}
