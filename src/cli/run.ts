/**
 * The process entry of the CLI (what `bin/agent-onion.js` loads). It exits as soon as the
 * command's answer is written: a hook module that leaves a connection or a timer open must not
 * keep Claude Code waiting for the process to end.
 */
import { describe } from "../core/errors.ts";
import { flushStdio, processIo } from "./io.ts";
import { main } from "./main.ts";

const argv = process.argv.slice(2);
// What a crash means for the commands whose exit code Claude Code reads: block (2), unless
// --fail-open asked for a non-blocking error (1). Node's own default, 1, would let the action go on.
const crashCode = argv[0] === "claude-hook" || argv[0] === "_hook-process" ? (argv.includes("--fail-open") ? 1 : 2) : 1;
const crash = (error: unknown): void => {
  process.stderr.write(`agent-onion ${argv[0] ?? ""}: ${describe(error)}\n`);
  process.exit(crashCode);
};
process.on("uncaughtException", crash);
process.on("unhandledRejection", crash);

void main(argv, processIo()).then(async (code) => {
  await flushStdio();
  process.exit(code);
}, crash);
