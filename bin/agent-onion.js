#!/usr/bin/env node
// The `agent-onion` command. In a checkout (src/ present) it runs the TypeScript sources
// through tsx's loader in this same process, so `claude-hook` can import .ts modules too;
// an installed package (dist/ only) runs the compiled JavaScript.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const source = new URL("../src/cli/run.ts", import.meta.url);
if (existsSync(fileURLToPath(source))) {
  const { register } = await import("tsx/esm/api");
  register();
  await import(source.href);
} else {
  await import(new URL("../dist/cli/run.js", import.meta.url).href);
}
