import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadStack } from "../../src/cli/load-stack.ts";
import { root } from "./helpers.ts";

const agentOnion = JSON.stringify(join(root, "src", "index.ts"));
const approval = { approval: async () => ({ approved: true }) } as never;

/** Write a hook module into a new directory and load it as the CLI does. */
const load = (code: string, exportName = "default", file = "guard.mjs") => {
  const dir = mkdtempSync(join(tmpdir(), "agent-onion-load-"));
  writeFileSync(join(dir, file), code.replaceAll("AGENT_ONION", agentOnion));
  return loadStack(file, dir, exportName, approval);
};

describe("loadStack, given a module that does not export a stack", () => {
  it("names the exports there are, when the one asked for is missing", async () => {
    await expect(load(`import { createAgentStack } from AGENT_ONION;\nexport const guard = createAgentStack();`)).rejects.toThrow(
      'guard.mjs has no export "default" (its exports: guard; name one with --export <name>; or export default a stack, or a function returning one)',
    );
  });

  it("names the exports of a CommonJS module", async () => {
    await expect(load(`exports.guard = 1;`, "stack", "guard.cjs")).rejects.toThrow('guard.cjs has no export "stack" (its exports: guard;');
  });

  it("says a module that exports nothing exports nothing", async () => {
    await expect(load(`const x = 1;`)).rejects.toThrow('guard.mjs has no export "default" (it exports nothing;');
  });

  it("says a hook was exported where a stack was expected, and how to put it on one", async () => {
    await expect(load(`export default { name: "no-rm", before: () => undefined };`)).rejects.toThrow(
      'guard.mjs: export "default" is a hook ("no-rm"): export createAgentStack().use(point, it), not a hook stack',
    );
  });

  it("says a middleware was exported where a stack was expected, and how to put it on one", async () => {
    await expect(load(`import { toolPolicy } from AGENT_ONION;\nexport default toolPolicy({ deny: ["Bash(rm *)"] });`)).rejects.toThrow(
      'guard.mjs: export "default" is a middleware ("toolPolicy"): export withMiddleware(createAgentStack(), it), not a hook stack',
    );
  });

  it("says what a factory returned when it is not a stack", async () => {
    await expect(load(`export default () => 42;`)).rejects.toThrow('guard.mjs: export "default" returned a number, not a hook stack');
    await expect(load(`export default () => {};`)).rejects.toThrow('guard.mjs: export "default" returned undefined, not a hook stack');
  });

  it("names the module and the export when the factory throws, keeping the error as the cause", async () => {
    const loading = load(`export default () => { throw new Error("no policy file"); };`);
    await expect(loading).rejects.toThrow('guard.mjs: export "default" failed to make the stack: no policy file');
    await expect(loading).rejects.toHaveProperty("cause.message", "no policy file");
  });
});

describe("loadStack, given a module that exports a stack", () => {
  it("awaits a promise of a stack, as an async factory called at the module's top gives", async () => {
    const stack = await load(`import { createAgentStack } from AGENT_ONION;\nexport default (async () => createAgentStack())();`);
    expect(typeof stack.run).toBe("function");
  });
});
