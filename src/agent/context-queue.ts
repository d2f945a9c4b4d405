/**
 * Hook-added context on its way to the model. Hooks call `ctx.addContext(text)` on any point;
 * the stack hands the text to `RunOptions.onContext` in hook order; the loop appends what has
 * gathered, in arrival order, to the conversation when it builds the next model request.
 */
import type { Message } from "./types.ts";

/**
 * The context hooks add during one call (a model or tool call, every attempt of it). When the
 * operation runs again (a `retry` hook called `next()` once more, or the `error` point asked for a
 * retry), a hook that added context for the earlier attempt and adds again for this one has its
 * earlier text withdrawn: the model reads each hook's text once, as the hook gave it for the
 * attempt that answered (which may differ from the last, e.g. "attempt 2 of 3"). Text a hook added
 * only once (from outside the retry, or on the first attempt only) stays. Attempts are told apart
 * by when the operation starts, and a text does not say which phase added it, so what an `after`
 * or `recover` adds to an attempt that is then retried counts as the next attempt's and stays.
 *
 * @example
 * const context = new AttemptContext((text) => { const box = { text }; boxes.push(box); return () => boxes.splice(boxes.indexOf(box), 1) })
 * await stack.run("modelCall", request, (req) => { context.next(); return model.generate(req, {}) }, { onContext: context.push })
 */
export class AttemptContext {
  // Declared and assigned in the constructor, and `push` bound there rather than an arrow field:
  // one is made per model or tool call, and under tsx and vitest esbuild's keepNames names every
  // arrow it makes with a defineProperty (about a microsecond a call).
  declare private entries: { readonly hook: string; readonly attempt: number; readonly withdraw: () => void }[];
  /** How many times the operation started (or the call began again): what was added since is this attempt's. */
  declare private attempt: number;
  declare private readonly add: (text: string, hook: string) => () => void;
  /** The `onContext` callback for the call's run options. */
  declare readonly push: (text: string, hook: string) => void;

  /** `add` delivers a text and returns how to take it back. */
  constructor(add: (text: string, hook: string) => () => void) {
    this.entries = [];
    this.attempt = 0;
    this.add = add;
    this.push = this.record.bind(this);
  }

  private record(text: string, hook: string): void {
    this.entries.push({ hook, attempt: this.attempt, withdraw: this.add(text, hook) });
  }

  /** Call as the operation starts, and before the whole call runs again. */
  next(): void {
    const current = this.attempt++;
    if (this.entries.length === 0) return; // the usual case: no hook added context
    // Hooks that added since the last start ran again: what they added before that is stale.
    const again = new Set(this.entries.filter((e) => e.attempt === current).map((e) => e.hook));
    if (again.size === 0) return;
    this.entries = this.entries.filter((e) => {
      const stale = e.attempt < current && again.has(e.hook);
      if (stale) e.withdraw();
      return !stale;
    });
  }
}

/** A text waiting in the queue, and the hook that added it (`"?"` when not known). */
interface Entry {
  readonly message: Message;
  readonly hook: string;
}

/** Where a queue stood: how many texts had arrived, and how many of them a model request had taken. */
export interface ContextMark {
  readonly pushed: number;
  readonly taken: number;
}

/**
 * Context texts waiting for the next model request. What a request takes is kept until `settle`,
 * so that `rewind` can hand it to the next request again when the turn's answer never reached the
 * conversation.
 *
 * @example
 * const pending = new ContextQueue("system"); stack.run("userPrompt", p, op, { onContext: pending.push }); pending.drain()
 */
export class ContextQueue {
  /** Items numbered from `base`: those below `taken` went to a model request; one a retried call withdrew is `undefined`. */
  private items: (Entry | undefined)[] = [];
  private base = 0;
  private taken = 0;

  constructor(private readonly role: "system" | "user" = "system") {}

  /** The `onContext` callback for run options. */
  readonly push = (text: string, hook = "?"): void => {
    this.add(text, hook);
  };

  /** Add a text; returns how to withdraw it while it still waits (see `AttemptContext`). */
  private add(text: string, hook: string): () => void {
    const item: Entry = { message: { role: this.role, content: text }, hook };
    const number = this.base + this.items.length;
    this.items.push(item);
    return () => {
      const i = number - this.base;
      if (number >= this.taken && this.items[i] === item) this.items[i] = undefined;
    };
  }

  /**
   * Run options' `onContext` for one model or tool call, every attempt of it: call `next()` of the
   * result as the operation starts, so that a retried attempt does not repeat an earlier one's text.
   */
  attempts(): AttemptContext {
    return new AttemptContext((text, hook) => this.add(text, hook));
  }

  /** Take everything waiting, in order. */
  drain(): Message[] {
    const waiting = this.items.slice(this.taken - this.base).filter((e): e is Entry => e !== undefined);
    this.taken = this.base + this.items.length;
    return waiting.map((e) => e.message);
  }

  /** A point to go back to with `rewind`. */
  mark(): ContextMark {
    return { pushed: this.base + this.items.length, taken: this.taken };
  }

  /**
   * Go back to `mark`: what was pushed since is dropped (the hooks that added it run again, or their
   * turn is over), and what was waiting then waits again, even if a request took it since. For a
   * turn that did not complete: its own context must not reach the next prompt, and a
   * `sessionStart` hook's, which no answer in the conversation has seen, must.
   */
  rewind(mark: ContextMark): void {
    this.items.length = Math.max(0, Math.min(this.items.length, mark.pushed - this.base));
    this.taken = Math.max(this.base, Math.min(this.taken, mark.taken));
  }

  /**
   * `rewind` to `mark`, keeping what arrived since `kept`: context a hook added after the attempt
   * failed (an `error` hook deciding to retry it) is for the next attempt, not the failed one.
   */
  rewindKeeping(mark: ContextMark, kept: ContextMark): void {
    const later = this.items.slice(Math.max(0, kept.pushed - this.base)).filter((e): e is Entry => e !== undefined);
    this.rewind(mark);
    this.items.push(...later);
  }

  /**
   * Wrap the operation of one run of the `run` or `step` point, whose `around` hooks may call
   * `next()` several times: an attempt after the first starts where the one before it did. What
   * that attempt took from the queue waits again and what was added while it ran goes (the points
   * inside it run again and add their context again), while what arrived after it (an `after` or
   * `around` hook's text, or a hook inside the retrying one adding again) is kept. A hook of this
   * point that added context before the earlier attempt and adds again before this one has its
   * earlier text withdrawn, as `AttemptContext` does for a model or tool call: hooks outside the
   * retrying `around` hook, which do not run again, keep theirs. `point` is where the queue stood
   * before the point ran.
   *
   * @example
   * stack.run("step", input, pending.restartable(pending.mark(), (s) => runStep(s)), options)
   */
  restartable<I, T>(point: ContextMark, operation: (input: I) => Promise<T>): (input: I) => Promise<T> {
    let started: ContextMark | undefined;
    let ended: ContextMark | undefined;
    return async (input) => {
      if (started !== undefined) this.restart(point, started, ended ?? this.mark());
      started = this.mark();
      ended = undefined;
      try {
        return await operation(input);
      } finally {
        ended = this.mark();
      }
    };
  }

  /** Back to `started`, keeping what came since `ended` and withdrawing what its hooks added since `point`. */
  private restart(point: ContextMark, started: ContextMark, ended: ContextMark): void {
    const later = this.items.slice(Math.max(0, ended.pushed - this.base)).filter((e): e is Entry => e !== undefined);
    const again = new Set(later.map((e) => e.hook));
    this.rewind(started);
    for (let n = Math.max(point.pushed, this.taken); n < this.base + this.items.length; n++) {
      const entry = this.items[n - this.base];
      if (entry !== undefined && again.has(entry.hook)) this.items[n - this.base] = undefined;
    }
    this.items.push(...later);
  }

  /** Forget what requests took: their answers are in the conversation now (a turn completed). */
  settle(): void {
    this.items.splice(0, this.taken - this.base);
    this.base = this.taken;
  }

  /** How many texts wait for the next request. */
  get size(): number {
    return this.items.slice(this.taken - this.base).filter((m) => m !== undefined).length;
  }
}
