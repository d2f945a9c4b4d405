import { readFileSync } from "node:fs";
import { defineConfig } from "vitest/config";
import { scaled } from "./test/support/scale.ts";

// `agent-onion` and its subpaths resolve to the sources, as tsconfig.json's "paths" map them for
// tsc and tsx (examples import the package by its name).
const exportsMap = (
  JSON.parse(readFileSync(new URL("package.json", import.meta.url), "utf8")) as { exports: Record<string, string | { default: string }> }
).exports;
const alias = Object.entries(exportsMap)
  .filter((e): e is [string, { default: string }] => typeof e[1] === "object")
  .map(([key, target]) => ({
    find: new RegExp(`^agent-onion${key.slice(1).replace(/[/-]/g, "\\$&")}$`),
    replacement: new URL(target.default.replace(/^\.\/dist\/(.+)\.js$/, "src/$1.ts"), import.meta.url).pathname,
  }));

export default defineConfig({
  resolve: { alias },
  test: {
    include: ["test/**/*.test.ts"],
    // The installed-package test packs and installs the package into new projects (minutes): `npm run test:package`.
    exclude: [
      "test/soak/**",
      "node_modules/**",
      ...(process.env.AGENT_ONION_PACKAGE_TESTS ? [] : ["test/package/installed-package.test.ts"]),
    ],
    // Type-level tests (`*.test-d.ts`) run with the same command: `expectTypeOf` and
    // `@ts-expect-error` are checked by tsc, so a type that compiles when it must not fails the suite.
    typecheck: { enabled: true, include: ["test/**/*.test-d.ts"], tsconfig: "./tsconfig.json" },
    // Many tests run real processes; AGENT_ONION_TEST_TIMEOUT_SCALE stretches these on a slow machine.
    testTimeout: scaled(20_000),
    hookTimeout: scaled(30_000),
    pool: "forks",
    env: { AGENT_ONION_STRICT: "1" },
    globalSetup: ["test/support/global-setup.ts"],
    setupFiles: ["test/support/warnings.ts", "test/support/transcripts.ts"],
  },
});
