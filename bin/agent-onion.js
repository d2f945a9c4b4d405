#!/usr/bin/env node
// The `agent-onion` command. In a checkout (src/ present) it runs the TypeScript sources
// through tsx's loader in this same process, so `claude-hook` can import .ts modules too;
// an installed package (dist/ only) runs the compiled JavaScript, and registers tsx when the
// project has it installed, so that a team's `.ts` stack loads there as well.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const source = new URL("../src/cli/run.ts", import.meta.url);
if (existsSync(fileURLToPath(source))) {
  const { register } = await import("tsx/esm/api");
  register();
  await import(source.href);
} else {
  try {
    const { register } = await import("tsx/esm/api");
    register();
  } catch {
    // no tsx: JavaScript modules only (load-stack says how to load a .ts one)
  }
  await import(new URL("../dist/cli/run.js", import.meta.url).href);
}
