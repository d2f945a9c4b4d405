/**
 * The process entry of the CLI (what `bin/agent-onion.js` loads). It exits as soon as the
 * command's answer is written: a hook module that leaves a connection or a timer open must not
 * keep Claude Code waiting for the process to end. A `claude-hook` process that ends before its
 * answer is written (the module called `process.exit`, or the stack waits on a promise nothing
 * will settle and the event loop empties) exits as a crash does, never 0 with nothing said.
 */
import { writeSync } from "node:fs";
import { describe } from "../core/errors.ts";
import { flushStdio, processIo } from "./io.ts";
import { main } from "./main.ts";

const argv = process.argv.slice(2);
// What a crash means for the commands whose exit code Claude Code reads: block (2), unless
// --fail-open asked for a non-blocking error (1). Node's own default, 1, would let the action go on.
const crashCode = argv[0] === "claude-hook" || argv[0] === "_hook-process" ? (argv.includes("--fail-open") ? 1 : 2) : 1;
// Set once the command's own answer (or a crash's) is the one the process exits with.
let answered = false;
const crash = (error: unknown): void => {
  answered = true;
  process.stderr.write(`agent-onion ${argv[0] ?? ""}: ${describe(error)}\n`);
  process.exit(crashCode);
};
process.on("uncaughtException", crash);
process.on("unhandledRejection", crash);
if (argv[0] === "claude-hook")
  process.on("exit", () => {
    if (answered) return;
    try {
      writeSync(
        2,
        `agent-onion claude-hook: the process ended before agent-onion answered: the module exited the process, or the stack waited on something that can no longer happen (a promise nothing settles, with no timer or connection left)\n`,
      );
    } catch {
      // stderr is gone: the exit code still says it
    }
    process.exitCode = crashCode;
  });

// Claude Code reads a command hook's whole stdout as its answer: what the module prints there
// (`console.log`) goes to stderr, so it cannot turn a denial into unreadable text.
void main(argv, processIo({ reserveStdout: argv[0] === "claude-hook" })).then(async (code) => {
  answered = true;
  await flushStdio();
  process.exit(code);
}, crash);
