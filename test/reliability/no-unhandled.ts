import { afterEach, beforeEach, expect } from "vitest";
import { drainRejections, trapUnhandled } from "./helpers.ts";

/**
 * Register hooks that fail a test if anything it started ended in an unhandled rejection or an
 * uncaught exception (A5), once pending rejections had a chance to surface.
 *
 * @example
 * describe("fuzzing", () => { expectNoUnhandledRejections(); it(...) })
 */
export const expectNoUnhandledRejections = (): void => {
  let trap: ReturnType<typeof trapUnhandled>;
  beforeEach(() => {
    trap = trapUnhandled();
  });
  afterEach(async () => {
    await drainRejections();
    trap.dispose();
    expect(trap.seen).toEqual([]);
  });
};
