/**
 * A session of any length runs in flat memory: 5 000 turns of the reference agent with the
 * recommended middleware, in a child process started with `--expose-gc` so that every sample is
 * read after full collections and nothing else of the suite shares its heap.
 */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import type { SessionFigures } from "./session-memory.ts";
import { scaled } from "../support/scale.ts";

const driver = fileURLToPath(new URL("./session-memory.ts", import.meta.url));

describe("a long session", () => {
  it(
    "runs 5 000 turns with the standard middleware in flat memory, keeping nothing in the store per finished turn",
    () => {
      const child = spawnSync(process.execPath, ["--expose-gc", "--import", "tsx", driver, "5000", "250"], {
        encoding: "utf8",
        timeout: 240_000,
      });
      expect(child.stderr.replace(/\(node:\d+\) \w*Warning:[^\n]*\n(\(Use `node --trace-warnings[^\n]*\n)?/g, "")).toBe("");
      expect(child.status).toBe(0);
      const figures = JSON.parse(child.stdout) as SessionFigures;
      expect(figures.notCompleted).toBe(0);
      const at = (turn: number) => figures.samples.find((s) => s.turn === turn)!;
      const after100 = at(100).heapUsedBytes;
      for (const s of figures.samples) expect(s.heapUsedBytes, `heap after turn ${s.turn}`).toBeLessThan(2 * after100);
      // Per-run guard state (token counts, time-limit starts) goes when its run ends.
      for (const s of figures.samples) expect(s.storeKeys, `store keys after turn ${s.turn}`).toBe(0);
      // A leak of 1 KB a turn is 4 MB over the last 4 000 turns; the sawtooth of compaction makes
      // about ±100 bytes a turn of noise in this slope.
      expect(figures.slopeBytesPerTurn).toBeLessThan(500);
    },
    scaled(300_000),
  );
});
