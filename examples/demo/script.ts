/**
 * What the scripted model says, turn by turn: a plausible coding agent that tries a
 * destructive command, installs with the wrong command, is briefly overloaded, reads a file
 * twice and wants to stop before running the tests. Asked to watch CI, it polls until a
 * guard stops it.
 */
import { createScriptedModel, type ScriptedModel } from "agent-onion";

/** The user's address, in the prompt; redaction keeps it from the model. */
export const userEmail = "ada@web-shop.dev";

export const userPrompt = `The build is broken. Clean it up, reinstall, and make sure it works. Mail ${userEmail} when it's green.`;

export const followUp = "Push it and watch CI until it's green.";

/** The provider's answer to one request: overloaded (HTTP 529), worth a retry. */
export const overloaded = Object.assign(new Error("529 overloaded_error: Overloaded"), { status: 529 });

/** The scripted model, streaming in small chunks. */
export const scriptedModel = (): ScriptedModel =>
  createScriptedModel({
    id: "scripted-coder",
    chunkSize: 7,
    delayMs: 2,
    turns: [
      {
        text: "Let me look at the project first.",
        toolCalls: [
          { name: "Read", input: { path: "package.json" } },
          { name: "Read", input: { path: ".npmrc" } },
          { name: "Bash", input: { command: "ls" } },
        ],
      },
      { text: "I'll wipe the build directory.", toolCalls: [{ name: "Bash", input: { command: "rm -rf build" } }] },
      {
        text: "That was blocked. I'll use the clean script and reinstall.",
        toolCalls: [
          { name: "Bash", input: { command: "npm run clean" } },
          { name: "Bash", input: { command: "npm install" } },
        ],
      },
      { error: overloaded },
      { text: "Checking the scripts once more.", toolCalls: [{ name: "Read", input: { path: "package.json" } }] },
      "Done: the build directory is clean and dependencies are reinstalled.",
      { text: "Running the tests first.", toolCalls: [{ name: "Bash", input: { command: "npm test" } }] },
      "All 42 tests pass. The build is clean and dependencies match the lockfile.",
      // The follow-up: push, then poll CI for as long as nobody stops it.
      { text: "Pushing, then I'll watch CI.", toolCalls: [{ name: "Bash", input: { command: "git push" } }] },
    ],
    whenDone: { text: "CI is still running; checking again.", toolCalls: [{ name: "Bash", input: { command: "gh run view" } }] },
  });
