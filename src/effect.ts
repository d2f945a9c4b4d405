/**
 * `agent-onion/effect`: hooks written as Effect programs. Its types come from `effect`, which
 * the hook author has installed (Effect itself is loaded on the first run of an Effect hook).
 *
 * @module agent-onion/effect
 */
export {
  EffectInterruptedError,
  effectHook,
  runEffect,
  type EffectHookSpec,
  type EffectNext,
  type EffectRuntime,
} from "./adapters/effect.ts";
