/**
 * Shared test helpers for the executors suite: fixture paths, tool calls, notices, processes.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { afterAll } from "vitest";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ToolCall, ToolResult } from "../../src/agent/types.ts";
import type { ExternalNotice } from "../../src/executors/protocol.ts";
import { scaled } from "../support/scale.ts";

const here = dirname(fileURLToPath(import.meta.url));

/** Absolute path of a fixture under test/fixtures. */
export const fixture = (...parts: string[]): string => join(here, "..", "fixtures", ...parts);

/** A command-hook fixture run with this node binary (exec form: no shell, no PATH lookup). */
export const node = (script: string, ...args: string[]): { command: string; args: string[] } => ({
  command: process.execPath,
  args: [fixture("commands", script), ...args],
});

export const bash = (command: string, id = "toolu_1"): ToolCall => ({ id, name: "Bash", input: { command } });

/** The tool operation used in tests: it echoes the command it was given. */
export const echoTool = (call: { readonly input: Readonly<Record<string, unknown>> }): ToolResult => ({
  content: `ran: ${String(call.input.command)}`,
});

/** A notice sink that keeps what it was told. */
export const notices = (): { list: ExternalNotice[]; sink: (n: ExternalNotice) => void } => {
  const list: ExternalNotice[] = [];
  return { list, sink: (n) => list.push(n) };
};

const madeDirs: string[] = [];
// Registered when a test file imports this module, so it runs after that file's tests.
afterAll(() => {
  for (const dir of madeDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A fresh directory under the system's temp dir, removed after the test file that made it. */
export const tempDir = (prefix = "agent-onion-"): string => {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  madeDirs.push(dir);
  return dir;
};

/**
 * True while a process with this pid runs. A zombie (killed, not yet reaped by an init that
 * reaps lazily, as in containers) counts as gone: it holds no pipes and runs no code.
 */
export const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const state = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.[0];
    return state !== "Z" && state !== "X";
  } catch {
    return true; // no /proc (macOS): the signal check above is all we have
  }
};

export const readPid = (file: string): number => Number(readFileSync(file, "utf8").trim());

/** Wait until `check` is true, polling every 10 ms, at most `ms` (long: a loaded machine is slow, and a true check returns at once). */
export const eventually = async (check: () => boolean, ms = scaled(15_000)): Promise<boolean> => {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 10));
  }
  return check();
};

export { existsSync };
