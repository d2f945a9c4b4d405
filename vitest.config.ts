import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    exclude: ["test/soak/**", "node_modules/**"],
    // Type-level tests (`*.test-d.ts`) run with the same command: `expectTypeOf` and
    // `@ts-expect-error` are checked by tsc, so a type that compiles when it must not fails the suite.
    typecheck: { enabled: true, include: ["test/**/*.test-d.ts"], tsconfig: "./tsconfig.json" },
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: "forks",
    env: { AGENT_ONION_STRICT: "1" },
    globalSetup: ["test/support/global-setup.ts"],
    setupFiles: ["test/support/warnings.ts", "test/support/transcripts.ts"],
  },
});
