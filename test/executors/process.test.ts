import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { HOOK_MARK_VARIABLE, runProcess, type ProcessOptions } from "../../src/executors/process.ts";
import { alive, eventually, fixture, readPid, tempDir } from "./helpers.ts";
import { scaled } from "../support/scale.ts";

const base = (over: Partial<ProcessOptions> & Pick<ProcessOptions, "command">): ProcessOptions => ({
  input: "",
  env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
  cwd: process.cwd(),
  timeoutMs: 60_000, // only against a hang: a loaded machine can take seconds to start a process
  killGraceMs: 100,
  ...over,
});
/** Kill a process this test started, if it is still there. */
const stop = (pid: number): void => {
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    // already gone
  }
};
/** Whether `file` holds a whole line (written, not half-written). */
const readable = (file: string): boolean => existsSync(file) && readFileSync(file, "utf8").endsWith("\n");
/** A signal that aborts once `check` holds, polled every 10 ms. */
const abortWhen = (check: () => boolean): AbortSignal => {
  const controller = new AbortController();
  const poll = setInterval(() => {
    if (!check()) return;
    clearInterval(poll);
    controller.abort(new Error("cut short"));
  }, scaled(10));
  return controller.signal;
};
const nodeScript = (script: string, ...args: string[]) => ({ command: process.execPath, args: [fixture("commands", script), ...args] });

describe("runProcess with bad options", () => {
  const cases: [string, Partial<ProcessOptions>, RegExp][] = [
    ["a signal that is not an AbortSignal", { signal: {} as never }, /signal must be an AbortSignal/],
    ["an input that is not a string", { input: {} as never }, /input must be a string/],
    ["a NaN timeout", { timeoutMs: Number.NaN }, /timeoutMs must be a positive number/],
    ["an infinite stdout cap", { maxStdoutBytes: Infinity }, /maxStdoutBytes must be a finite number/],
    ["a negative kill grace", { killGraceMs: -5 }, /killGraceMs must be a number of ms from 0/],
  ];
  for (const [what, over, message] of cases)
    it(`starts nothing and answers with a spawnError for ${what}`, async () => {
      const r = await runProcess(base({ command: "sleep", args: ["5"], ...over }));
      expect(r.pid).toBeUndefined();
      expect(r.spawnError).toBeInstanceOf(TypeError);
      expect(r.spawnError?.message).toMatch(message);
    });

  it("answers with a spawnError, never a rejection, when its options throw when read", async () => {
    const options = new Proxy(
      {},
      {
        get: () => {
          throw new Error("read refused");
        },
      },
    ) as ProcessOptions;
    const r = await runProcess(options);
    expect(r.spawnError?.message).toMatch(/options could not be read: read refused/);
  });
});

describe("runProcess", () => {
  it("writes the input to stdin, closes it, and collects stdout", async () => {
    const r = await runProcess(base({ command: "cat", input: "hello" }));
    expect(r.exitCode).toBe(0);
    expect(r.stdout.toString()).toBe("hello");
  });

  it("lets a script that waits for EOF finish, because stdin is always closed", async () => {
    const r = await runProcess(base({ command: fixture("commands", "wait-for-eof.sh"), input: "abc" }));
    expect(r.exitCode).toBe(0);
    expect(r.stdout.toString()).toContain("read 3 bytes");
  });

  it("survives a child that exits without reading a 2 MB stdin (EPIPE)", async () => {
    const input = "x".repeat(2 * 1024 * 1024);
    for (const code of ["0", "2"]) {
      const r = await runProcess(base({ ...nodeScript("exit-without-reading.mjs", code), input }));
      expect(r.exitCode).toBe(Number(code));
      expect(r.spawnError).toBeUndefined();
    }
  });

  it("kills the whole process tree on timeout, escalating to SIGKILL when SIGTERM is ignored", async () => {
    const pidFile = join(tempDir(), "grandchild.pid");
    const r = await runProcess(
      base({ command: fixture("commands", "ignore-sigterm.sh"), args: [pidFile], timeoutMs: 300, killGraceMs: 100 }),
    );
    expect(r.timedOut).toBe(true);
    // Settled before the grandchild's 30 s were over (it writes .ended then), however long that took.
    expect(existsSync(`${pidFile}.ended`)).toBe(false);
    const grandchild = readPid(pidFile);
    expect(await eventually(() => !alive(grandchild))).toBe(true);
    expect(existsSync(`${pidFile}.ended`)).toBe(false); // killed, not ended on its own
  });

  it("does not wait for a grandchild that keeps stdout open after the hook exited, and kills it", async () => {
    const pidFile = join(tempDir(), "grandchild.pid");
    const r = await runProcess(base({ command: fixture("commands", "leave-grandchild.sh"), args: [pidFile] }));
    expect(r.exitCode).toBe(0);
    // Settled before the grandchild's 30 s were over (it writes .ended then), however long that took.
    expect(existsSync(`${pidFile}.ended`)).toBe(false);
    expect(await eventually(() => !alive(readPid(pidFile)))).toBe(true);
    expect(existsSync(`${pidFile}.ended`)).toBe(false); // killed, not ended on its own
  });

  it("leaves running a process the hook put in the background once that process let go of the pipes (nohup … &)", async () => {
    const pidFile = join(tempDir(), "background.pid");
    const r = await runProcess(base({ command: `nohup sleep 30 >/dev/null 2>&1 & echo $! > '${pidFile}'; exit 0` }));
    expect(r.exitCode).toBe(0);
    const background = readPid(pidFile);
    try {
      await new Promise((done) => setTimeout(done, 300));
      expect(alive(background)).toBe(true);
    } finally {
      stop(background);
    }
  });

  it("does not wait for a grandchild in a session of its own (setsid) that keeps stdout open, and kills it", async () => {
    const pidFile = join(tempDir(), "setsid.pid");
    // The grandchild writes its own pid once in its session; the hook exits after that.
    const r = await runProcess(
      base({
        command: `setsid sh -c 'echo $$ > "${pidFile}.tmp"; mv "${pidFile}.tmp" "${pidFile}"; exec sleep 30' & while [ ! -s '${pidFile}' ]; do sleep 0.01; done; exit 0`,
        timeoutMs: 60_000,
      }),
    );
    const escaped = readPid(pidFile);
    try {
      expect(r.exitCode).toBe(0);
      expect(r.timedOut).toBe(false);
      expect(await eventually(() => !alive(escaped))).toBe(true);
    } finally {
      stop(escaped);
    }
  });

  describe("kills what a hook cut short started in a session of its own", () => {
    // Each escapee writes its pid, then would touch a file a second later: once it is dead it never can.
    const escapee = (dir: string, name: string) => `sh -c 'echo $$ > "${dir}/${name}.pid"; sleep 1; touch "${dir}/${name}.ran"'`;
    const cases: [string, (dir: string) => string][] = [
      ["setsid, the hook still running", (dir) => `setsid ${escapee(dir, "x")} & sleep 60`],
      ["setsid after a double fork, its parent gone", (dir) => `( setsid ${escapee(dir, "x")} & ) ; sleep 60`],
      [
        "setsid in a double fork that let go of the pipes",
        (dir) => `( setsid ${escapee(dir, "x")} >/dev/null 2>&1 </dev/null & ) ; sleep 60`,
      ],
    ];
    for (const [what, command] of cases)
      it(`when cut short: ${what}`, async () => {
        const dir = tempDir();
        const pidFile = join(dir, "x.pid");
        // The hook is cut short only once the escapee is known to run in its own session.
        const r = await runProcess(
          base({ command: `${command(dir)}`, timeoutMs: 60_000, killGraceMs: 100, signal: abortWhen(() => readable(pidFile)) }),
        );
        expect(r.aborted).toBe(true);
        const pid = readPid(pidFile);
        try {
          expect(await eventually(() => !alive(pid))).toBe(true);
          expect(existsSync(join(dir, "x.ran"))).toBe(false);
        } finally {
          stop(pid);
        }
      });
  });

  it("kills only its own hook's processes: a second copy of the module cutting its hook short leaves this one's alone", async () => {
    // Two copies of the module in one process (two installed versions) count their runs from the same start.
    const copy = async (n: number) =>
      (
        (await import(/* @vite-ignore */ `${new URL("../../src/executors/process.ts", import.meta.url).href}?copy=${n}`)) as {
          runProcess: typeof runProcess;
        }
      ).runProcess;
    const other = await copy(1);
    const mine = await copy(2);
    expect(other).not.toBe(mine);
    const dir = tempDir();
    const started = join(dir, "started");
    const [cut, innocent] = await Promise.all([
      other(base({ command: "sleep 60", signal: abortWhen(() => existsSync(started)) })),
      mine(base({ command: `touch '${started}'; sleep 1; echo finished` })),
    ]);
    expect(cut.aborted).toBe(true);
    expect(innocent.exitCode).toBe(0);
    expect(innocent.stdout.toString()).toBe("finished\n");
  });

  it("reports a missing executable and a non-executable file as spawn errors", async () => {
    const missing = await runProcess(base({ command: fixture("commands", "no-such-hook.sh"), args: [] }));
    expect(missing.spawnError?.message).toMatch(/ENOENT/);
    const denied = await runProcess(base({ command: fixture("commands", "not-executable.sh"), args: [] }));
    expect(denied.spawnError?.message).toMatch(/EACCES/);
  });

  it("reports a working directory that does not exist before trying to spawn", async () => {
    const r = await runProcess(base({ command: "true", cwd: "/definitely/not/here" }));
    expect(r.spawnError?.message).toMatch(/does not exist/);
  });

  it("kills a process whose stdout passes the cap and says so", async () => {
    const r = await runProcess(base({ ...nodeScript("huge-stdout.mjs", "8"), maxStdoutBytes: 1024 * 1024 }));
    expect(r.stdoutOverflow).toBe(true);
    expect(r.stdout.length).toBeLessThanOrEqual(1024 * 1024);
  });

  it("keeps only the head of a chatty stderr", async () => {
    const r = await runProcess(base({ command: "head -c 200000 /dev/zero >&2", maxStderrBytes: 1000 }));
    expect(r.stderrTruncated).toBe(true);
    expect(r.stderr.length).toBe(1000);
  });

  it("reports a child killed by a signal it did not expect", async () => {
    const r = await runProcess(base({ command: fixture("commands", "kill-self.sh"), args: [] }));
    expect(r.exitCode).toBeNull();
    expect(r.signal).toBe("SIGKILL");
  });

  it("stops the process tree when the caller aborts", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const r = await runProcess(base({ ...nodeScript("sleep.mjs"), signal: controller.signal }));
    expect(r.aborted).toBe(true);
    expect(r.timedOut).toBe(false);
  });

  it("passes only the environment it is given, and the mark of its run", async () => {
    const r = await runProcess(base({ command: "env", env: { PATH: process.env.PATH ?? "", ONLY_ME: "1" } }));
    const names = r.stdout
      .toString()
      .trim()
      .split("\n")
      .map((l) => l.split("=")[0])
      .sort();
    expect(names.filter((n) => n !== "PWD" && n !== "SHLVL" && n !== "_")).toEqual([HOOK_MARK_VARIABLE, "ONLY_ME", "PATH"]);
  });
});
