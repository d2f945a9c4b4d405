/**
 * `agent-onion _hook-process <module> [--export <name>] [--fail-open]`: what `serve` starts as its
 * child (hook-process.ts); not a command for people.
 */
import { parseArgs } from "node:util";
import { hookProcess } from "./hook-process.ts";
import { UsageError, type CliIo } from "./io.ts";

/**
 * Parse the child's arguments and run it; returns the exit code.
 *
 * @example
 * await hookProcessCommand(["hooks/guard.ts", "--export", "default"], processIo())
 */
export const hookProcessCommand = async (argv: readonly string[], io: CliIo): Promise<number> => {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: { export: { type: "string", default: "default" }, "fail-open": { type: "boolean", default: false } },
  });
  if (positionals.length !== 1) throw new UsageError("_hook-process takes exactly one module path");
  return hookProcess({ file: positionals[0]!, cwd: io.cwd, exportName: values.export!, failOpen: values["fail-open"]! });
};
