/**
 * The process entry of the CLI (what `bin/agent-onion.js` imports).
 */
import { processIo } from "./io.ts";
import { main } from "./main.ts";

process.exitCode = await main(process.argv.slice(2), processIo());
