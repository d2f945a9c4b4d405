/**
 * Where layers go (R1, and order by name). A hook may name the hooks of its point it runs
 * `before` (it is placed outside them: its `before` runs first, its `after` last) and `after`
 * (inside them). Names are hard constraints; priority orders everything they leave free.
 *
 * The order is a topological order of the name constraints in which, whenever several layers are
 * free to go next (every layer they must run after is placed), the one with the lowest priority
 * goes first, then the one registered first (Kahn's algorithm with a priority queue). Without
 * names this is exactly R1: ascending priority, then registration order.
 *
 * A name must be registered on the point when the hook naming it is (so a typo is caught at once),
 * unless the hook's order is `optional` (a middleware relating to another that may be absent, or
 * registered later); no set of names may form a cycle, whichever hook registers last. Both are
 * registration errors. A name with no hook (an optional one not registered, or one removed with
 * `without()`) constrains nothing.
 */
import { RegistrationError } from "./errors.ts";
import type { Layer } from "./hook.ts";

/** R1 without names: ascending priority, then registration order. */
export const byPriority = (a: Layer, b: Layer): number => a.priority - b.priority || a.seq - b.seq;

/**
 * Check a new layer's names against its point: every name must be registered there (`lookup`
 * finds a layer of the point by name) unless its order is optional, and the names of the new
 * layer and of the point's layers that have names (`named`) must not make a cycle. Throws a
 * `RegistrationError` naming the hook and the field. Costs nothing for a layer without names
 * that no other layer names.
 */
export const checkOrder = (
  layer: Layer,
  lookup: (name: string) => Layer | undefined,
  named: readonly Layer[],
  referenced: boolean,
): void => {
  const order = layer.order;
  if (order === undefined && !referenced) return;
  if (order !== undefined && !order.optional)
    for (const [field, list] of [
      ["before", order.before],
      ["after", order.after],
    ] as const)
      for (const name of list)
        if (lookup(name) === undefined)
          throw new RegistrationError(
            layer.name,
            `order.${field}`,
            `names "${name}", which is not registered on point "${layer.point}" (register it first)`,
          );
  const find = (name: string): Layer | undefined => (name === layer.name ? layer : lookup(name));
  const cycle = findCycle(edges(order === undefined ? named : [...named, layer], find), layer);
  if (cycle !== undefined)
    throw new RegistrationError(layer.name, cycle.field, `makes a cycle of names: ${cycle.path.join(" → ")} (each runs before the next)`);
};

/** Edges "outer runs before inner" from the names of `named`; `find` resolves a name (undefined: removed since, no constraint). */
const edges = (named: readonly Layer[], find: (name: string) => Layer | undefined): Map<Layer, Layer[]> => {
  const out = new Map<Layer, Layer[]>();
  const add = (from: Layer | undefined, to: Layer | undefined): void => {
    if (from === undefined || to === undefined) return;
    const list = out.get(from);
    if (list === undefined) out.set(from, [to]);
    else list.push(to);
  };
  for (const l of named) {
    if (l.order === undefined) continue;
    for (const name of l.order.before) add(l, find(name));
    for (const name of l.order.after) add(find(name), l);
  }
  return out;
};

/** A cycle through `start`, if the edges make one: the hooks on it, and the field of `start` that closes it. */
const findCycle = (out: Map<Layer, Layer[]>, start: Layer): { path: string[]; field: string } | undefined => {
  // Depth-first from start: a path back to it is the cycle.
  const seen = new Set<Layer>();
  const path: Layer[] = [start];
  const visit = (node: Layer): boolean => {
    for (const next of out.get(node) ?? []) {
      if (next === start) return true;
      if (seen.has(next)) continue;
      seen.add(next);
      path.push(next);
      if (visit(next)) return true;
      path.pop();
    }
    return false;
  };
  if (!visit(start)) return undefined;
  // Which field of `start` the cycle goes through: its `before` (the first edge), its `after` (the
  // last), or, when it names no one, its name, which other hooks' names point at.
  const second = path[1] ?? start;
  const last = path[path.length - 1] ?? start;
  const field =
    start.order?.before.includes(second.name) === true
      ? "order.before"
      : start.order?.after.includes(last.name) === true
        ? "order.after"
        : "name";
  return { path: [...path, start].map((l) => l.name), field };
};

/**
 * The layers of one point in the order they run (outermost first). Without names, a sort by
 * priority; with names, Kahn's algorithm taking the lowest (priority, registration) among the
 * layers that are free to go next.
 */
export const orderLayers = (layers: readonly Layer[]): Layer[] => {
  const named = layers.filter((l) => l.order !== undefined);
  if (named.length === 0) return [...layers].sort(byPriority);
  const byName = new Map<string, Layer>();
  for (const l of layers) byName.set(l.name, l);
  const out = edges(named, (name) => byName.get(name));
  const waiting = new Map<Layer, number>();
  for (const l of layers) waiting.set(l, 0);
  for (const targets of out.values()) for (const t of targets) waiting.set(t, (waiting.get(t) as number) + 1);
  const heap = new LayerHeap();
  for (const l of layers) if (waiting.get(l) === 0) heap.push(l);
  const ordered: Layer[] = [];
  for (let l = heap.pop(); l !== undefined; l = heap.pop()) {
    ordered.push(l);
    for (const t of out.get(l) ?? []) {
      const left = (waiting.get(t) as number) - 1;
      waiting.set(t, left);
      if (left === 0) heap.push(t);
    }
  }
  // Registration refuses cycles; a layer left over would mean one: keep it, in R1 order, rather than lose it.
  if (ordered.length < layers.length) for (const l of [...layers].sort(byPriority)) if (!ordered.includes(l)) ordered.push(l);
  return ordered;
};

/** A binary min-heap of layers by (priority, registration). */
class LayerHeap {
  private readonly items: Layer[] = [];

  push(layer: Layer): void {
    const items = this.items;
    items.push(layer);
    for (let i = items.length - 1; i > 0; ) {
      const parent = (i - 1) >> 1;
      if (byPriority(items[parent] as Layer, items[i] as Layer) <= 0) break;
      [items[parent], items[i]] = [items[i] as Layer, items[parent] as Layer];
      i = parent;
    }
  }

  pop(): Layer | undefined {
    const items = this.items;
    const top = items[0];
    const last = items.pop();
    if (items.length === 0 || last === undefined) return top;
    items[0] = last;
    for (let i = 0; ; ) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < items.length && byPriority(items[l] as Layer, items[m] as Layer) < 0) m = l;
      if (r < items.length && byPriority(items[r] as Layer, items[m] as Layer) < 0) m = r;
      if (m === i) break;
      [items[m], items[i]] = [items[i] as Layer, items[m] as Layer];
      i = m;
    }
    return top;
  }
}
