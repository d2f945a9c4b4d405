/**
 * Files Claude Code gives its hooks, made for runs that have none of their own: an empty
 * transcript (so `transcript_path` always names a readable JSONL file) and the session's
 * `CLAUDE_ENV_FILE`, whose `export` lines SessionStart hooks append for later shell commands.
 * They live in one private directory (mode 0700) per process, removed when the process exits.
 */
import { createHash } from "node:crypto";
import { closeSync, mkdtempSync, openSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HOOK_MARK_VARIABLE, runProcess } from "./process.ts";

let dir: string | undefined;

/** The process's private directory, made on first use. */
const privateDir = (): string => {
  if (dir === undefined) {
    const created = mkdtempSync(join(tmpdir(), "agent-onion-hooks-"));
    dir = created;
    process.once("exit", () => rmSync(created, { recursive: true, force: true }));
  }
  return dir;
};

/** A file name for a session id, whatever characters the id holds. */
const fileName = (sessionId: string, ext: string): string => {
  const safe = sessionId.replace(/[^A-Za-z0-9._-]/g, "_").slice(0, 64) || "session";
  return `${safe}-${createHash("sha256").update(sessionId).digest("hex").slice(0, 8)}${ext}`;
};

const made = new Set<string>();

/** `path`, created empty when it does not exist yet (once; a failure to create it is left to whoever reads it). */
const touch = (path: string): string => {
  if (made.has(path)) return path;
  try {
    closeSync(openSync(path, "a", 0o600));
    made.add(path);
  } catch {
    // Out of file descriptors, a full disk: the hook still runs, and finds no file where it looks.
  }
  return path;
};

/**
 * An empty transcript for a session that has none: hooks that read `transcript_path` find a
 * JSONL file with no conversation in it, rather than no file.
 *
 * @example
 * emptyTranscript("s1") // "/tmp/agent-onion-hooks-Ab12/s1-3f2a9c1d.jsonl"
 */
export const emptyTranscript = (sessionId: string): string => touch(join(privateDir(), fileName(sessionId, ".jsonl")));

/**
 * The session's `CLAUDE_ENV_FILE`: where SessionStart hooks append `export` lines.
 *
 * @example
 * sessionEnvFile("s1") // "/tmp/agent-onion-hooks-Ab12/s1-3f2a9c1d.env.sh"
 */
export const sessionEnvFile = (sessionId: string): string => touch(join(privateDir(), fileName(sessionId, ".env.sh")));

/**
 * True when `path` is a file with something in it.
 *
 * @example
 * hasContent(sessionEnvFile("s1")) // false until a hook appends to it
 */
export const hasContent = (path: string): boolean => {
  try {
    return statSync(path).size > 0;
  } catch {
    return false;
  }
};

/**
 * The variables an env file sets, as bash reads it: the file is sourced by a real bash with
 * `set -a` on top of `base` (its whole environment: give it what the hooks that wrote the file
 * were given, so that the file cannot read what they could not), and every variable whose value
 * it changed or added is returned (`export PATH="$PATH:./node_modules/.bin"` gives the extended
 * PATH). Throws when bash cannot run it, it takes longer than `timeoutMs`, or `signal` aborts.
 *
 * @example
 * await envFileVariables("/tmp/s1.env.sh", childEnv()) // { NODE_ENV: "production" }
 */
export const envFileVariables = async (
  path: string,
  base: Readonly<Record<string, string | undefined>>,
  timeoutMs = 10_000,
  signal?: AbortSignal,
): Promise<Record<string, string>> => {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(base)) if (typeof v === "string") env[k] = v;
  const r = await runProcess({
    command: "bash",
    // --norc: bash reads ~/.bashrc when its stdin is a socket (Node's pipes are), which would add the
    // user's own shell set-up to what the file exported.
    args: ["--norc", "--noprofile", "-c", 'set -a; . "$1" >/dev/null || exit; set +a; env -0', "agent-onion-env", path],
    input: "",
    env,
    cwd: tmpdir(),
    timeoutMs,
    signal,
  });
  if (r.spawnError) throw new Error(`cannot evaluate ${path}: ${r.spawnError.message}`);
  if (r.aborted) throw new Error(`cannot evaluate ${path}: the run was cancelled`);
  if (r.timedOut || r.exitCode !== 0)
    throw new Error(
      `cannot evaluate ${path}: bash ${r.timedOut ? "timed out" : `exited with code ${String(r.exitCode)}`}: ${r.stderr.toString("utf8").trim()}`,
    );
  const out: Record<string, string> = {};
  for (const entry of r.stdout.toString("utf8").split("\0")) {
    const eq = entry.indexOf("=");
    if (eq <= 0) continue;
    const name = entry.slice(0, eq);
    const value = entry.slice(eq + 1);
    // bash's own variables are not what the file exported.
    if (name === "_" || name === "SHLVL" || name === "PWD" || name === "OLDPWD" || name === HOOK_MARK_VARIABLE) continue;
    if (env[name] !== value) out[name] = value;
  }
  return out;
};
