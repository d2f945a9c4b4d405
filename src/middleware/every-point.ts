/**
 * One observer on many points: audit, metrics, tracing and the Chrome trace recorder watch every
 * point of the agent, each through the same `observe` hook registered once per point.
 */
import type { RunEvent } from "../core/context.ts";
import type { Hook } from "../core/hook.ts";
import { agentPoints } from "../agent/points.ts";
import type { MiddlewareHooks } from "./apply.ts";
import { show } from "./options.ts";

/** The standard agent points, by name. */
export type AgentPointName = keyof typeof agentPoints;

/**
 * Every standard agent point.
 *
 * @example
 * onEveryPoint(hook, allAgentPoints.filter((p) => p !== "notification"))
 */
export const allAgentPoints: readonly AgentPointName[] = Object.freeze(Object.keys(agentPoints) as AgentPointName[]);

/**
 * The same hook on each of `points` (default all standard agent points).
 *
 * @example
 * const hooks = onEveryPoint({ name: "log", observe: (event) => console.log(event.point, event.outcome._tag) })
 */
export const onEveryPoint = (hook: Hook<any, any, any>, points: readonly string[] = allAgentPoints): MiddlewareHooks => {
  // A lone string would be read as its characters ("toolCall" as "t", "o"...), "" as no points at all.
  if (!Array.isArray(points)) throw new TypeError(`${hook.name}: points must be a list of agent point names, got ${show(points)}`);
  for (const point of points)
    if (typeof point !== "string" || !Object.hasOwn(agentPoints, point))
      throw new TypeError(`${hook.name}: ${show(point)} is not an agent point (known: ${allAgentPoints.join(", ")})`);
  return Object.fromEntries(points.map((point) => [point, hook])) as MiddlewareHooks;
};

/**
 * An observe-only hook named `name` calling `fn` with every settled run.
 *
 * @example
 * const hooks = onEveryPoint(observer("count", () => void count++))
 */
export const observer = (name: string, fn: (event: RunEvent<any, any>) => void | PromiseLike<void>): Hook<any, any, any> => ({
  name,
  observe: fn,
});
