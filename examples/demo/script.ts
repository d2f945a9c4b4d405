/**
 * What the scripted model says, turn by turn: a plausible coding agent that tries a
 * destructive command, installs with the wrong command, reads a file twice and wants to stop
 * before running the tests.
 */
import { createScriptedModel, type ScriptedModel } from "../../src/index.ts";

export const userPrompt = "The build is broken. Clean it up, reinstall, and make sure it works.";

/** The scripted model, streaming in small chunks. */
export const scriptedModel = (): ScriptedModel =>
  createScriptedModel({
    id: "scripted-coder",
    chunkSize: 7,
    delayMs: 2,
    turns: [
      { text: "Let me look at the project first.", toolCalls: [{ name: "Read", input: { path: "package.json" } }, { name: "Bash", input: { command: "ls" } }] },
      { text: "I'll wipe the build directory.", toolCalls: [{ name: "Bash", input: { command: "rm -rf build" } }] },
      { text: "That was blocked. I'll use the clean script and reinstall.", toolCalls: [{ name: "Bash", input: { command: "npm run clean" } }, { name: "Bash", input: { command: "npm install" } }] },
      { text: "Checking the scripts once more.", toolCalls: [{ name: "Read", input: { path: "package.json" } }] },
      "Done: the build directory is clean and dependencies are reinstalled.",
      { text: "Running the tests first.", toolCalls: [{ name: "Bash", input: { command: "npm test" } }] },
      "All 42 tests pass. The build is clean and dependencies match the lockfile.",
    ],
  });
