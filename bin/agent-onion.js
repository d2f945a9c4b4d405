#!/usr/bin/env node
// The `agent-onion` command. An installed package runs the compiled dist/; a checkout (src/
// present) runs the TypeScript sources through tsx. Nothing else is loaded here: claude-hook
// starts once per tool call, and a TypeScript loader is registered only for a TypeScript module.
// Built-ins are looked up rather than imported: an ES module import of node:fs reads every
// export of it, which loads Node's streams.
const { existsSync, readFileSync } = process.getBuiltinModule("node:fs");
const module = process.getBuiltinModule("node:module");

// Node 22.1 and later keep compiled code between runs (a no-op where it is not available):
// claude-hook starts once per tool call, mostly compiling the same files each time.
module.enableCompileCache?.();

const command = process.argv[2];
if (command === "--version" || command === "-v") {
  process.stdout.write(`${JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")).version}\n`);
} else {
  const source = new URL("../src/cli/run.ts", import.meta.url);
  const started = existsSync(source) ? import("tsx").then(() => import(source.href)) : import("../dist/cli/run.js");
  started.catch((error) => {
    process.stderr.write(`agent-onion: ${error?.stack ?? error}\n`);
    // claude-hook's exit code is read by Claude Code: a CLI that cannot start must block, not allow.
    process.exit(command === "claude-hook" && !process.argv.includes("--fail-open") ? 2 : 1);
  });
}
