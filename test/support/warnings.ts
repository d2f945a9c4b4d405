/**
 * Test setup: the library's own process warnings (`AgentOnion*Warning`) are kept for assertions
 * instead of printed, and the AI SDK's console warnings are off. A test that provokes a warning on
 * purpose reads it with `takeWarnings()`; nothing a test provokes clutters the output.
 */
import { beforeEach } from "vitest";

/** A process warning the library emitted during the current test. */
export interface CapturedWarning {
  readonly type: string;
  readonly message: string;
}

const key = Symbol.for("agent-onion.test.warnings");
type Store = { seen: CapturedWarning[] };
const store: Store = ((globalThis as Record<symbol, unknown>)[key] ??= { seen: [] }) as Store;

/**
 * The library's warnings since the current test started (or since the last call), and forget them.
 *
 * @example
 * expect(takeWarnings()).toEqual([{ type: "AgentOnionPolicyWarning", message: expect.stringContaining('"Bash"') }])
 */
export const takeWarnings = (): CapturedWarning[] => store.seen.splice(0);

const installed = Symbol.for("agent-onion.test.warnings.installed");
if ((process as unknown as Record<symbol, unknown>)[installed] !== true) {
  (process as unknown as Record<symbol, unknown>)[installed] = true;
  const original = process.emitWarning.bind(process) as (...args: unknown[]) => void;
  const typeOf = (args: unknown[]): string | undefined => {
    const second = args[1];
    if (typeof second === "string") return second;
    if (typeof second === "object" && second !== null && typeof (second as { type?: unknown }).type === "string")
      return (second as { type: string }).type;
    const first = args[0];
    return first instanceof Error ? first.name : undefined;
  };
  process.emitWarning = ((...args: unknown[]) => {
    const type = typeOf(args);
    if (type?.startsWith("AgentOnion")) {
      const first = args[0];
      store.seen.push({ type, message: first instanceof Error ? first.message : String(first) });
      return;
    }
    original(...args);
  }) as typeof process.emitWarning;
  (globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;
}

beforeEach(() => {
  store.seen.length = 0;
});
