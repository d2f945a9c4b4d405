import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { envFileVariables } from "../../src/executors/session-files.ts";
import { tempDir } from "./helpers.ts";
import { settlesWithin } from "../support/timers.ts";

describe("envFileVariables", () => {
  it("returns what the file exported on top of the base, as bash reads it", async () => {
    const file = join(tempDir(), "env.sh");
    writeFileSync(file, 'export A=1\nexport P="$PATH:/x"\n');
    expect(await envFileVariables(file, { PATH: "/bin" })).toEqual({ A: "1", P: "/bin:/x" });
  });

  it("sees only the base it is given, not this process's environment", async () => {
    process.env.AGENT_ONION_ENV_FILE_SECRET = "secret";
    try {
      const file = join(tempDir(), "env.sh");
      writeFileSync(file, 'export SEEN="$AGENT_ONION_ENV_FILE_SECRET"\n');
      expect(await envFileVariables(file, { PATH: process.env.PATH })).toEqual({ SEEN: "" });
    } finally {
      delete process.env.AGENT_ONION_ENV_FILE_SECRET;
    }
  });

  it("stops reading a file that hangs when its signal aborts", async () => {
    const file = join(tempDir(), "env.sh");
    writeFileSync(file, "sleep 20\n");
    const reading = envFileVariables(file, { PATH: process.env.PATH }, 10_000, AbortSignal.timeout(200));
    // Stopped at the abort, not at its 10 s timeout: only a process to kill lies between.
    expect(
      await settlesWithin(
        8_000,
        reading.catch(() => {}),
      ),
    ).toBe(true);
    await expect(reading).rejects.toThrow(/cancelled/);
  });
});
