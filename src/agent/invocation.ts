/**
 * One `agent.run()`: the points it runs (opening the session, the prompt, the run, closing the
 * session) belong to one invocation of the agent, which telemetry reports as one operation. The
 * invocation is carried by an `AsyncLocalStorage`, so the hooks of those points can find it
 * without it travelling through any point's input or metadata. Only once some middleware asked
 * (`trackInvocations`): on Node 20 the first `AsyncLocalStorage.run` makes every later promise of
 * the process slower (about 2x on a loop of awaits), a cost nobody without tracing should pay.
 */
import { AsyncLocalStorage } from "node:async_hooks";

/** The invocation the current code runs in, as middleware sees it. */
export interface Invocation {
  /** The agent's name. */
  readonly agent: string;
  /** Call `fn` once the invocation ended (at once if it already has); every point it ran has settled by then. */
  onEnd(fn: () => void): void;
}

class AgentInvocation implements Invocation {
  private ends: (() => void)[] | undefined = [];
  constructor(readonly agent: string) {}

  onEnd(fn: () => void): void {
    if (this.ends === undefined) fn();
    else this.ends.push(fn);
  }

  end(): void {
    const ends = this.ends ?? [];
    this.ends = undefined;
    // One listener's failure must not keep the others from running, nor reach the caller.
    for (const fn of ends) {
      try {
        fn();
      } catch {
        // A listener is telemetry's; the invocation's result does not depend on it.
      }
    }
  }
}

const storage = new AsyncLocalStorage<AgentInvocation>();
let tracked = false;

/**
 * Have every later `agent.run()` carry its invocation, for middleware that reads it (`tracing`
 * calls this when it is made). Process-wide and for good: nothing turns it off.
 *
 * @example
 * trackInvocations(); await agent.run("hi") // its hooks see currentInvocation()
 */
export const trackInvocations = (): void => {
  tracked = true;
};

/**
 * The invocation the calling code runs in, if any (inside `agent.run()`).
 *
 * @example
 * stack.use("sessionStart", { name: "log", before: () => void console.log(currentInvocation()?.agent) })
 */
export const currentInvocation = (): Invocation | undefined => storage.getStore();

/**
 * Run `fn` as one invocation of `agent`, ending it when `fn` settles; just `fn` until someone asked
 * for invocations to be tracked.
 *
 * @example
 * const turn = await invoke("coder", () => runTheAgent())
 */
export const invoke = async <T>(agent: string, fn: () => Promise<T>): Promise<T> => {
  if (!tracked) return fn();
  const invocation = new AgentInvocation(agent);
  try {
    return await storage.run(invocation, fn);
  } finally {
    invocation.end();
  }
};
