/**
 * agent-onion as a user's project gets it from npm: the compiled `dist/`, `bin/` and
 * `package.json` copied into the project's node_modules, its runtime dependencies beside it (no
 * tsx, no dev tools, unless the project itself has tsx), and the `agent-onion` bin link, so
 * `npx agent-onion` in Claude Code's settings runs what a user would run.
 */
import { spawnSync } from "node:child_process";
import { copyFileSync, cpSync, existsSync, mkdirSync, readFileSync, symlinkSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

const dependenciesOf = (dir: string): string[] => {
  const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as {
    dependencies?: Record<string, string>;
    optionalDependencies?: Record<string, string>;
  };
  return [...Object.keys(manifest.dependencies ?? {}), ...Object.keys(manifest.optionalDependencies ?? {})];
};

/** Link `name` from the checkout's node_modules into `modules`, with what it needs and does not carry itself. */
const link = (name: string, modules: string, done: Set<string>, optional = false): void => {
  if (done.has(name)) return;
  const source = join(root, "node_modules", name);
  if (!existsSync(source)) {
    if (optional) return; // another platform's build
    throw new Error(`agent-onion-package: ${name} is not installed in ${join(root, "node_modules")} (npm ci)`);
  }
  done.add(name);
  mkdirSync(dirname(join(modules, name)), { recursive: true });
  symlinkSync(source, join(modules, name), "dir");
  for (const dep of dependenciesOf(source)) if (!existsSync(join(source, "node_modules", dep))) link(dep, modules, done, true);
};

/**
 * Compile agent-onion into `dir` as its npm package holds it; returns `dir`.
 *
 * @example
 * const pkg = buildPackage(join(tmp, "agent-onion"))
 */
export const buildPackage = (dir: string): string => {
  // The package's own build (scripts/build.ts), into this copy.
  const build = spawnSync(
    process.execPath,
    ["--import", "tsx", join(root, "scripts", "build.ts"), "--out", join(dir, "dist"), "--no-types"],
    { cwd: root, encoding: "utf8" },
  );
  if (build.status !== 0) throw new Error(`agent-onion-package: the build failed: ${build.stdout}${build.stderr}`);
  copyFileSync(join(root, "package.json"), join(dir, "package.json"));
  // The whole folder: bin/package.json makes the command CommonJS.
  cpSync(join(root, "bin"), join(dir, "bin"), { recursive: true });
  return dir;
};

/**
 * Install a package built by `buildPackage` into `project` as npm would: a copy in
 * node_modules/agent-onion, its dependencies hoisted beside it, node_modules/.bin/agent-onion;
 * with `tsx`, the project also has tsx installed (as TypeScript projects do).
 *
 * @example
 * installPackage(pkg, project, { tsx: false })
 */
export const installPackage = (pkg: string, project: string, options: { readonly tsx: boolean }): void => {
  const modules = join(project, "node_modules");
  cpSync(pkg, join(modules, "agent-onion"), { recursive: true });
  const done = new Set<string>();
  for (const dep of dependenciesOf(pkg)) link(dep, modules, done);
  if (options.tsx) link("tsx", modules, done);
  mkdirSync(join(modules, ".bin"), { recursive: true });
  symlinkSync("../agent-onion/bin/agent-onion.js", join(modules, ".bin", "agent-onion"));
};
