/**
 * Whether this machine can run the real-client tests: the pinned Claude Code installed by
 * `scripts/claude-code/install.sh` (or named by `AGENT_ONION_CLAUDE_CODE_BIN`), and a network
 * namespace with loopback only. Kept apart from the harness so the global setup can read it
 * without vitest.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

/** The Claude Code version the rig pins (`scripts/claude-code/VERSION`). */
export const claudeCodeVersion: string = readFileSync(join(root, "scripts", "claude-code", "VERSION"), "utf8").trim();

/** Where install.sh puts the binary. */
export const cachedBinary: string = join(
  root,
  ".cache",
  "claude-code",
  claudeCodeVersion,
  "node_modules",
  "@anthropic-ai",
  "claude-code",
  "bin",
  "claude.exe",
);

/** `AGENT_ONION_REQUIRE_CLAUDE_CODE=1` (set by `.ci/run`) turns a skip into a failure. */
export const required: boolean = process.env.AGENT_ONION_REQUIRE_CLAUDE_CODE === "1";

/** The binary, if it runs and reports the pinned version; else why not. */
const findBinary = (): { path?: string; problem?: string } => {
  const path = process.env.AGENT_ONION_CLAUDE_CODE_BIN || cachedBinary;
  if (!existsSync(path))
    return {
      problem: process.env.AGENT_ONION_CLAUDE_CODE_BIN
        ? `AGENT_ONION_CLAUDE_CODE_BIN names ${path}, which does not exist`
        : `Claude Code ${claudeCodeVersion} is not installed (bash scripts/claude-code/install.sh)`,
    };
  const run = spawnSync(path, ["--version"], { encoding: "utf8", timeout: 10_000 });
  const version = run.stdout?.trim().split(" ")[0];
  if (run.status !== 0) return { problem: `${path} --version failed: ${run.error?.message ?? run.stderr?.trim()}` };
  if (version !== claudeCodeVersion && !process.env.AGENT_ONION_CLAUDE_CODE_BIN)
    return { problem: `${path} is Claude Code ${version}, the rig pins ${claudeCodeVersion} (bash scripts/claude-code/install.sh)` };
  return { path };
};

/**
 * How to enter a network namespace with loopback only: `unshare -n` as root, else `unshare -rn`
 * (a user namespace), whichever can bring `lo` up here.
 */
const findUnshare = (): { args?: readonly string[]; problem?: string } => {
  const tries = process.getuid?.() === 0 ? [["-n"], ["-rn"]] : [["-rn"]];
  let last = "";
  for (const flags of tries) {
    const probe = spawnSync("unshare", [...flags, "ip", "link", "set", "lo", "up"], { encoding: "utf8", timeout: 10_000 });
    if (probe.status === 0) return { args: flags };
    last = probe.error?.message ?? probe.stderr.trim();
  }
  return {
    problem: `no network namespace with loopback (unshare ${tries.map((t) => t.join(" ")).join(" / ")} ip link set lo up: ${last})`,
  };
};

const binary = findBinary();
const unshare = binary.path === undefined ? {} : findUnshare();

/** The Claude Code binary the rig runs, when it can run it. */
export const claudeCodeBinary: string | undefined = unshare.args ? binary.path : undefined;
/** `unshare` flags that give a namespace with loopback only. */
export const unshareFlags: readonly string[] = unshare.args ?? [];
/** Whether the real-client tests can run here. */
export const claudeCodeAvailable: boolean = claudeCodeBinary !== undefined;
/** Why they cannot run here, with what makes them run; undefined when they can. */
export const claudeCodeProblem: string | undefined = claudeCodeAvailable ? undefined : (binary.problem ?? unshare.problem);
/** The one line the global setup prints when they are skipped. */
export const claudeCodeSkipNotice = `Claude Code real-client tests skipped: ${claudeCodeProblem ?? "nothing missing"}.`;
