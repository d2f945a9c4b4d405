#!/usr/bin/env node
// The `agent-onion` command. An installed package runs the compiled dist/; a checkout (src/
// present) runs the TypeScript sources through tsx. Nothing else is loaded here: claude-hook
// starts once per tool call, and a TypeScript loader is registered only for a TypeScript module.
//
// This file is CommonJS (bin/package.json) and loads the built CLI with require(), which reads
// ES modules synchronously (Node 20.19 and 22.12 on, as the engines ask): a main module that is
// an ES module sets up Node's asynchronous module loader and its file streams, a few ms more per
// event. Built-ins are looked up rather than imported, which is what the built files do too.
const { existsSync, readFileSync } = process.getBuiltinModule("node:fs");
const { join } = process.getBuiltinModule("node:path");
const { pathToFileURL } = process.getBuiltinModule("node:url");
const { enableCompileCache } = process.getBuiltinModule("node:module");

// Node 22.1 and later keep compiled code between runs (a no-op where it is not available):
// claude-hook starts once per tool call, mostly compiling the same files each time.
enableCompileCache?.();

const command = process.argv[2];
// claude-hook's exit code is read by Claude Code: a CLI that cannot start must block, not allow.
const fail = (error) => {
  process.stderr.write(`agent-onion: ${error?.stack ?? error}\n`);
  process.exit(command === "claude-hook" && !process.argv.includes("--fail-open") ? 2 : 1);
};
if (command === "--version" || command === "-v") {
  process.stdout.write(`${JSON.parse(readFileSync(join(__dirname, "..", "package.json"), "utf8")).version}\n`);
} else {
  const source = join(__dirname, "..", "src", "cli", "run.ts");
  if (existsSync(source)) import("tsx").then(() => import(pathToFileURL(source).href)).catch(fail);
  else {
    try {
      require("../dist/cli/run.js");
    } catch (error) {
      fail(error);
    }
  }
}
