/**
 * Build the package into dist/: declarations from tsc (one .d.ts per source file), JavaScript from
 * esbuild, one file per entry point of package.json's `exports` plus the CLI, with the code they
 * share in dist/chunks/.
 *
 * Why a bundler for the JavaScript: Node loads one ES module file at a time, and about 120 small
 * files made `import "agent-onion"` cost twice what the same code costs in a few files. Why one
 * build with code splitting rather than a bundle per entry: every entry must share one copy of
 * the engine, or `Continue` from `agent-onion/core` would not be `Continue` from `agent-onion`,
 * and a stack built by a hook module would not be one the CLI recognizes.
 *
 *   npx tsx scripts/build.ts
 */
import { execFileSync } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = fileURLToPath(new URL("..", import.meta.url));

interface PackageJson {
  readonly exports: Record<string, string | { readonly types?: string; readonly default?: string }>;
  readonly engines: { readonly node: string };
}

/** `./dist/x/y.js` in the exports map is built from `src/x/y.ts`. */
export const sourceOf = (target: string): string => {
  const match = /^\.\/dist\/(.+)\.js$/.exec(target);
  if (!match) throw new Error(`exports target ${target} is not ./dist/<path>.js`);
  return `src/${match[1]}.ts`;
};

/** The source file of every JavaScript entry point, from package.json's `exports`. */
export const entrySources = (pkg: PackageJson): string[] =>
  Object.values(pkg.exports)
    .filter((v): v is { default: string } => typeof v === "object" && typeof v.default === "string")
    .map((v) => sourceOf(v.default));

const main = async (): Promise<void> => {
  const pkg = JSON.parse(readFileSync(`${root}package.json`, "utf8")) as PackageJson;
  rmSync(`${root}dist`, { recursive: true, force: true });
  execFileSync(process.execPath, [`${root}node_modules/typescript/bin/tsc`, "-p", `${root}tsconfig.build.json`], { stdio: "inherit" });
  await build({
    absWorkingDir: root,
    entryPoints: [...entrySources(pkg), "src/cli/run.ts"],
    outdir: "dist",
    outbase: "src",
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20",
    // Dependencies and optional peers stay imports, resolved in the user's node_modules.
    packages: "external",
    chunkNames: "chunks/[name]-[hash]",
    // Error classes and hooks are known by name in messages and traces: keep them.
    keepNames: true,
    legalComments: "none",
    logLevel: "warning",
  });
};

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
