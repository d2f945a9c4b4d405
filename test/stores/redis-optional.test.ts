import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

describe("ioredis as an optional peer dependency", () => {
  it("importing RedisStore does not load ioredis; creating a store from connection options does", () => {
    const script = `
      import { createRequire } from "node:module";
      const loaded = () => Object.keys(createRequire(import.meta.url).cache).some((p) => p.includes("/node_modules/ioredis/"));
      const { RedisStore } = await import("./src/stores/redis.ts");
      const before = loaded();
      const store = new RedisStore({ connection: { lazyConnect: true } });
      console.log(JSON.stringify({ before, after: loaded() }));
      await store.close();
    `;
    const run = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
      encoding: "utf8",
      cwd: fileURLToPath(new URL("../..", import.meta.url)),
    });
    expect(run.stderr).toBe("");
    expect(JSON.parse(run.stdout)).toEqual({ before: false, after: true });
  });
});
