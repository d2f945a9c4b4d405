import { describe, expect, it } from "vitest";
import { BackgroundQueue } from "../../src/executors/queue.ts";

/** A job that runs until `release()` is called, and says whether it started. */
const held = () => {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const job = { started: false, signal: undefined as AbortSignal | undefined, release: () => release() };
  const run = (signal: AbortSignal): Promise<void> => ((job.started = true), (job.signal = signal), gate);
  return { job, run };
};

describe("BackgroundQueue", () => {
  it("runs at most `concurrency` jobs at once and starts waiting ones in order as others end", async () => {
    const queue = new BackgroundQueue({ concurrency: 2 });
    const jobs = [held(), held(), held()];
    const ends = jobs.map((j, i) => queue.push(`job${i}`, j.run));
    await Promise.resolve();
    await Promise.resolve();
    expect(jobs.map((j) => j.job.started)).toEqual([true, true, false]);
    expect(queue.size).toBe(3);
    jobs[0]?.job.release();
    await ends[0];
    await new Promise((r) => setImmediate(r));
    expect(jobs[2]?.job.started).toBe(true);
    for (const j of jobs) j.job.release();
    await queue.idle();
    expect([queue.completed, queue.cancelled, queue.dropped, queue.size]).toEqual([3, 0, 0, 0]);
  });

  it("drops a job when full, counts it, tells onDrop its label, and returns undefined", async () => {
    const dropped: string[] = [];
    const queue = new BackgroundQueue({ limit: 1, onDrop: (label) => dropped.push(label) });
    const first = held();
    expect(queue.push("first", first.run)).toBeInstanceOf(Promise);
    expect(queue.push("second", async () => {})).toBeUndefined();
    expect([queue.dropped, dropped]).toEqual([1, ["second"]]);
    first.job.release();
    await queue.idle();
  });

  it("counts a job that throws or rejects as completed and never rejects its promise", async () => {
    const queue = new BackgroundQueue();
    await expect(
      queue.push("throws", () => {
        throw new Error("sync");
      }),
    ).resolves.toBeUndefined();
    await expect(queue.push("rejects", () => Promise.reject(new Error("async")))).resolves.toBeUndefined();
    expect(queue.completed).toBe(2);
  });

  it("on cancel, aborts the signal of running jobs and never starts waiting ones", async () => {
    const queue = new BackgroundQueue({ concurrency: 1 });
    const running = held();
    const waiting = held();
    queue.push("running", (signal) => (running.run(signal), new Promise((r) => signal.addEventListener("abort", r))));
    const skipped = queue.push("waiting", waiting.run);
    await new Promise((r) => setImmediate(r));
    await queue.cancel(new Error("shutdown"));
    await skipped;
    expect(running.job.signal?.aborted).toBe(true);
    expect(waiting.job.started).toBe(false);
    expect([queue.cancelled, queue.completed, queue.size]).toEqual([2, 0, 0]);
  });

  it("refuses a job that is not a function when it is pushed, naming its label, and counts nothing", () => {
    const queue = new BackgroundQueue();
    expect(() => queue.push("audit", 5 as never)).toThrow(
      new TypeError('BackgroundQueue.push("audit"): the job must be a function, got number'),
    );
    expect([queue.completed, queue.dropped, queue.size]).toEqual([0, 0, 0]);
  });

  it("refuses a limit or concurrency that is not a positive integer", () => {
    expect(() => new BackgroundQueue({ limit: 0 })).toThrow(RangeError);
    expect(() => new BackgroundQueue({ concurrency: Number.NaN })).toThrow(/concurrency must be a positive integer/);
  });
});
