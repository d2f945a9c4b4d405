/**
 * Loading the TypeScript stack a team wrote, from a module: its `default` export or a named
 * one, either a stack or a function that builds one (and may take the bridge's approval
 * recorder, so `ask` decisions can be answered as Claude Code's "ask").
 */
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { AgentStack } from "../agent/stack.ts";
import type { ApprovalHandler } from "../core/context.ts";

/** What a stack factory receives. */
export interface StackFactoryOptions {
  /** Records approval requests; the bridge answers Claude Code with "ask". */
  readonly approval: ApprovalHandler;
}

const isStack = (value: unknown): value is AgentStack =>
  typeof value === "object" && value !== null && typeof (value as AgentStack).run === "function" && typeof (value as AgentStack).explain === "function";

/**
 * Import `file` (relative to `cwd`) and return its stack.
 *
 * @example
 * const stack = await loadStack("hooks/guard.ts", process.cwd(), "default", { approval })
 */
export const loadStack = async (file: string, cwd: string, exportName: string, factory: StackFactoryOptions): Promise<AgentStack> => {
  const url = pathToFileURL(resolve(cwd, file)).href;
  let mod: Record<string, unknown>;
  try {
    mod = (await import(url)) as Record<string, unknown>;
  } catch (error) {
    // Node cannot import TypeScript by itself: say what makes it work.
    const hint = (error as { code?: unknown })?.code === "ERR_UNKNOWN_FILE_EXTENSION" && /\.[cm]?tsx?$/.test(file)
      ? " (to load a TypeScript module, install tsx beside agent-onion: npm i -D tsx; or compile it to .js)"
      : "";
    throw new Error(`cannot load ${file}: ${(error as Error).message}${hint}`, { cause: error });
  }
  const exported = mod[exportName] ?? (exportName === "default" ? mod.stack : undefined);
  if (exported === undefined) throw new Error(`${file} has no export "${exportName}" (export default a stack, or a function returning one)`);
  const value = typeof exported === "function" ? await (exported as (o: StackFactoryOptions) => unknown)(factory) : exported;
  if (!isStack(value)) throw new Error(`${file}: export "${exportName}" is not a hook stack (expected createAgentStack()...)`);
  return value;
};
