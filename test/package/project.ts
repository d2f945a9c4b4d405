/**
 * Real consumer projects: the package packed with `npm pack` (which builds it) and installed from
 * the tarball with npm, as a user installs it, into a temporary directory.
 */
import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** npm, without what `npm test` passes its scripts (the package's own name and scripts). */
const npmEnv = (): NodeJS.ProcessEnv =>
  Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_(package|lifecycle)_/.test(k) && k !== "npm_config_global"));

/**
 * Build and pack the package into `dir`; returns the tarball's path.
 *
 * @example
 * const tarball = packTarball(mkdtempSync(join(tmpdir(), "pack-")))
 */
export const packTarball = (dir: string): string => {
  const out = execFileSync("npm", ["pack", "--json", "--pack-destination", dir], {
    cwd: root,
    env: npmEnv(),
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });
  const [packed] = JSON.parse(out.slice(out.indexOf("["))) as { filename: string }[];
  return join(dir, packed!.filename);
};

/**
 * A new directory whose node_modules holds `dependencies` (name to version or tarball path),
 * installed by npm (from its cache when it can, else from the registry).
 *
 * @example
 * const dir = installProject({ "agent-onion": tarball, tsx: "^4" })
 */
export const installProject = (dependencies: Record<string, string>): string => {
  const dir = mkdtempSync(join(tmpdir(), "agent-onion-consumer-"));
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "consumer", private: true, dependencies }, null, 2));
  execFileSync("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error"], {
    cwd: dir,
    env: npmEnv(),
    stdio: ["ignore", "pipe", "pipe"],
  });
  return dir;
};

/**
 * Write `files` (path relative to `dir`, content; objects are written as JSON).
 *
 * @example
 * writeFiles(dir, { "esm/package.json": { type: "module" }, "esm/main.ts": "..." })
 */
export const writeFiles = (dir: string, files: Record<string, string | object>): void => {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), typeof content === "string" ? content : `${JSON.stringify(content, null, 2)}\n`);
  }
};

export interface Ran {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Run a command in `cwd` with `input` on stdin (and `env` added to the environment).
 *
 * @example
 * const { code, stdout } = await run(process.execPath, ["out/main.js"], dir)
 */
export const run = (
  command: string,
  args: readonly string[],
  cwd: string,
  input = "",
  timeoutMs = 60_000,
  env: NodeJS.ProcessEnv = {},
): Promise<Ran> =>
  new Promise((resolve, reject) => {
    const child = spawn(command, [...args], { cwd, env: { ...npmEnv(), ...env }, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.on("error", () => {});
    child.stdin.end(input);
  });

/** `tsc` of the TypeScript this repository builds with, or of a version installed in the project as `alias`. */
export const tsc = (dir: string, project: string, alias?: string): Promise<Ran> =>
  // Checking Effect's declarations without skipLibCheck takes a while on a busy machine.
  run(
    process.execPath,
    [alias ? join(dir, "node_modules", alias, "bin", "tsc") : join(root, "node_modules", "typescript", "bin", "tsc"), "-p", project],
    dir,
    "",
    600_000,
  );
