/**
 * Chains: the layers of one point that apply to one subject (R8), compiled once and cached, so a
 * hook whose matcher does not match costs nothing per run.
 *
 * A point whose enabled hooks all match every subject has one chain. Otherwise the chain depends
 * on which subject-dependent matchers accept the subject: subjects that agree share one chain
 * (most points have a handful of distinct chains however many tool names pass through), and the
 * subject → chain lookup is a bounded cache that forgets the least recently used subjects, so a
 * stream of new subjects (hostile, or just many tools) costs a few matcher tests each and never
 * grows memory or falls off a cliff.
 *
 * When the point's subject function throws on an input, the subject is unknown: each hook that
 * decides by the subject's name fails its match (R6), reported on every run; one that fails closed
 * applies (its condition unchecked), one that fails open is left out. Match-all and function
 * matchers are not affected (a function gets an `undefined` subject). A hook that only observes is
 * left out, and its failure counted as an observer's (R10), as when its matcher throws.
 */
import { LayerFlag, wraps, type Layer } from "./hook.ts";
import { compileMatcher } from "./match/matcher.ts";
import type { Point } from "./point.ts";

/** The layers of one point for one subject. Not frozen: V8 reads frozen arrays slower in hot loops, and chains never leave the stack. */
export interface Chain {
  readonly point: Point;
  /** Enabled layers that wrap the operation and whose matcher accepts the subject, outermost first. */
  readonly layers: readonly Layer[];
  /** Enabled hooks with an `observe` function whose matcher accepts the subject, in the same order. */
  readonly observers: readonly Layer[];
  /** Some layer has an `onSettled`: the run keeps a list of the layers it entered. */
  readonly settles: boolean;
  /**
   * Some `around` has a `timeoutMs`: its deadline can settle the run while the operation inside
   * still runs, so the operation needs a signal that can abort then (see `Run.watchable`). Other
   * around hooks wait for what they started, unless they answer without waiting for `next()`;
   * paying for an `AbortSignal` on every run for that would tax the common case.
   */
  readonly nests: boolean;
  /**
   * By index: the highest index up to it whose layer does something on the way out (`after`,
   * `recover` or `onSettled`), -1 if none. An around hook with nothing to leave through between
   * its frame's start and itself hands its inner outcome straight on (see `AroundCall.handOn`).
   */
  readonly exits: readonly number[];
  /** For a chain made because the point's subject function threw: the hooks whose match failed. */
  readonly unknownSubject: readonly Layer[] | undefined;
  /** One chain for every subject: the subject is computed per run, and only when someone can see it. */
  readonly shared: boolean;
  /**
   * Only `around` hooks with no condition on the input and nobody observing: a hook sees the input
   * only through `ctx.input`, so a `DeferredInput` is built when one reads it (see deferred.ts).
   */
  readonly defers: boolean;
}

/** Compile the chain of `live` layers (enabled, in order) that apply. */
export const compileChain = (point: Point, applying: readonly Layer[], shared: boolean, unknownSubject?: readonly Layer[]): Chain => {
  const layers = applying.filter(wraps);
  const observers = applying.filter((l) => l.observe !== undefined);
  let last = -1;
  return {
    point,
    layers,
    observers,
    settles: layers.some((l) => l.onSettled !== undefined),
    nests: layers.some((l) => l.around !== undefined && l.timeoutMs !== undefined),
    exits: layers.map((l, i) => (l.after !== undefined || l.recover !== undefined || l.onSettled !== undefined ? (last = i) : last)),
    unknownSubject,
    shared,
    defers: unknownSubject === undefined && observers.length === 0 && layers.every(onlyAround),
  };
};

/** An `around` and nothing else that sees the input: no before, exit, onSettled, input condition or recheck. */
const onlyAround = (l: Layer): boolean =>
  l.around !== undefined &&
  l.before === undefined &&
  l.after === undefined &&
  l.recover === undefined &&
  l.onSettled === undefined &&
  (l.flags & (LayerFlag.matchesInput | LayerFlag.matchesOutcome | LayerFlag.recheck)) === 0;

/** Whether `l` applies to an input whose subject could not be computed (what `explain` says too). */
export const appliesWithoutSubject = (l: Layer): boolean => !l.matcher.needsSubject || (l.failMode === "closed" && wraps(l));

/** Subjects remembered per point; past this the least recently used are forgotten. */
const maxSubjects = 1024;

/**
 * The chains of one point in one stack: made lazily and kept with the stack (which is immutable,
 * so they never go stale).
 */
export class PointChains {
  private readonly shared: Chain | undefined;
  /** Enabled layers whose matcher depends on the subject: what a chain's signature is made of. */
  private readonly dependent: readonly Layer[];
  private readonly bySignature = new Map<string, Chain>();
  /** subject → chain, least recently used forgotten: two generations, so a hit costs one lookup. */
  private young = new Map<string | undefined, Chain>();
  private old = new Map<string | undefined, Chain>();
  private unknown: Chain | undefined;

  constructor(
    readonly point: Point,
    /** Enabled layers of the point, in order. */
    private readonly live: readonly Layer[],
  ) {
    this.dependent = live.filter((l) => !l.matcher.all);
    this.shared = this.dependent.length === 0 ? compileChain(point, live, true) : undefined;
  }

  /** The chain shared by every subject, if the point has one (then the subject need not be computed to find it). */
  get any(): Chain | undefined {
    return this.shared;
  }

  /** The chain for `subject`. */
  of(subject: string | undefined): Chain {
    const young = this.young;
    let chain = young.get(subject);
    if (chain !== undefined) return chain;
    chain = this.old.get(subject);
    if (chain !== undefined) this.old.delete(subject);
    else chain = this.compile(subject);
    young.set(subject, chain);
    if (young.size >= maxSubjects) {
      this.old = young;
      this.young = new Map();
    }
    return chain;
  }

  /** The chain for inputs whose subject function threw (see the module comment). */
  ofUnknown(): Chain {
    if (this.unknown !== undefined) return this.unknown;
    const applying = this.live
      .filter(appliesWithoutSubject)
      // A copy that matches everything: the hook applies without its condition being checked.
      .map((l) =>
        l.matcher.needsSubject
          ? { ...l, matcher: compileMatcher(undefined, l.name), flags: l.flags & ~(LayerFlag.matchesInput | LayerFlag.matchesOutcome) }
          : l,
      );
    return (this.unknown = compileChain(
      this.point,
      applying,
      false,
      this.live.filter((l) => l.matcher.needsSubject),
    ));
  }

  private compile(subject: string | undefined): Chain {
    let signature = "";
    for (const l of this.dependent) signature += l.matcher.matchSubject(subject) ? "1" : "0";
    let chain = this.bySignature.get(signature);
    if (chain === undefined) {
      chain = compileChain(
        this.point,
        this.live.filter((l) => l.matcher.all || l.matcher.matchSubject(subject)),
        false,
      );
      this.bySignature.set(signature, chain);
    }
    return chain;
  }
}
