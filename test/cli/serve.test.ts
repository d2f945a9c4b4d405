/**
 * `agent-onion serve` run as a real server on 127.0.0.1, called with real HTTP requests the way
 * Claude Code calls an `"type": "http"` hook, and compared with `claude-hook` on the same events.
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { httpAnswer } from "../../src/cli/hook-answer.ts";
import { bin, fixture, root, runChild } from "./helpers.ts";
import { scaled } from "../support/scale.ts";

interface Server {
  readonly child: ChildProcess;
  readonly url: string;
  stderr: string;
  readonly exited: Promise<number | null>;
}

/** Start `agent-onion serve` on a free port and wait for its "listening on" line. */
const startServer = (args: readonly string[], cwd = root): Promise<Server> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, "serve", "--port", "0", ...args], { cwd, stdio: ["ignore", "pipe", "pipe"] });
    const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
    const server = { child, url: "", stderr: "", exited };
    child.stderr.on("data", (c: Buffer) => (server.stderr += c.toString()));
    let out = "";
    child.stdout.on("data", (c: Buffer) => {
      out += c.toString();
      const match = /listening on (http:\/\/\S+)/.exec(out);
      if (match)
        resolve({
          ...server,
          url: match[1] as string,
          get stderr() {
            return server.stderr;
          },
        });
    });
    void exited.then((code) => reject(new Error(`serve exited ${code}: ${server.stderr}`)));
  });

interface Reply {
  readonly status: number;
  readonly body: string;
  readonly type: string | undefined;
}

/** POST `body` as Claude Code does; `headers` override the defaults. */
const post = (url: string, body: string | Buffer, headers: Record<string, string> = {}, method = "POST"): Promise<Reply> =>
  new Promise((resolve, reject) => {
    const req = request(url, { method, headers: { "content-type": "application/json", ...headers } }, (res) => {
      let text = "";
      res.on("data", (c: Buffer) => (text += c.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text, type: res.headers["content-type"] }));
    });
    req.on("error", reject);
    // Node's client frames no body for GET: sent anyway, it would reach the server as a malformed next request.
    req.end(method === "GET" ? undefined : body);
  });

const stop = async (server: Server): Promise<number | null> => {
  server.child.kill("SIGTERM");
  return server.exited;
};

/** Wait until `check` holds, however long a busy machine needs (the test's own timeout bounds it). */
const eventually = async (check: () => boolean | Promise<boolean>): Promise<void> => {
  while (!(await check())) await new Promise((r) => setTimeout(r, 20));
};

/** The process is gone (or a zombie, which runs nothing). */
const gone = (pid: number): boolean => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
    return stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
  } catch {
    return true;
  }
};

const event = (fields: Record<string, unknown>): string => JSON.stringify({ session_id: "s1", cwd: "/tmp", ...fields });

describe("agent-onion serve", () => {
  let guard: Server;
  beforeAll(async () => {
    guard = await startServer([fixture("settings", "guard-stack.ts")]);
  }, scaled(30_000));
  afterAll(async () => {
    if (guard) expect(await stop(guard)).toBe(0);
  });

  const events = {
    "a destructive command": event({
      hook_event_name: "PreToolUse",
      tool_name: "Bash",
      tool_input: { command: "rm -rf build" },
      tool_use_id: "t1",
    }),
    "a rewritten command": event({
      hook_event_name: "PreToolUse",
      tool_name: "Bash",
      tool_input: { command: "curl https://example.com" },
      tool_use_id: "t2",
    }),
    "a push that needs a person": event({
      hook_event_name: "PreToolUse",
      tool_name: "Bash",
      tool_input: { command: "git push" },
      tool_use_id: "t3",
    }),
    "a plain command": event({ hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "ls" }, tool_use_id: "t4" }),
    "a prompt with a key": event({ hook_event_name: "UserPromptSubmit", prompt: "use sk-ABCDEFGH1234" }),
    "output with a secret": event({
      hook_event_name: "PostToolUse",
      tool_name: "Bash",
      tool_input: { command: "cat .env" },
      tool_use_id: "t5",
      tool_response: "SECRET=hunter2 PORT=80",
    }),
    "a first stop": event({ hook_event_name: "Stop", stop_hook_active: false, last_assistant_message: "done" }),
    "a session start": event({ hook_event_name: "SessionStart", source: "startup" }),
    "an event it does not drive": event({ hook_event_name: "PermissionRequest", tool_name: "Bash", tool_input: {} }),
    "an event it cannot read": event({ hook_event_name: "PreToolUse", tool_input: { command: "ls" } }),
  };

  it(
    "answers every event as claude-hook does, translated to HTTP",
    async () => {
      const commands = await Promise.all(
        Object.values(events).map((body) => runChild(process.execPath, [bin, "claude-hook", fixture("settings", "guard-stack.ts")], body)),
      );
      for (const [i, [name, body]] of Object.entries(events).entries()) {
        const command = commands[i]!;
        const expected = httpAnswer({
          ...(JSON.parse(body).hook_event_name !== undefined ? { event: JSON.parse(body).hook_event_name as string } : {}),
          exitCode: command.code as 0 | 1 | 2,
          ...(command.stdout ? { json: JSON.parse(command.stdout) as Record<string, unknown> } : {}),
          ...(command.stderr ? { stderr: command.stderr.trimEnd() } : {}),
        });
        const served = await post(guard.url, body);
        expect({ name, status: served.status, body: served.body }).toEqual({
          name,
          status: expected.status,
          body: (expected.body ?? "").replace(/agent-onion claude-hook/g, "agent-onion serve"),
        });
      }
    },
    scaled(60_000),
  );

  it("answers a deny as Claude Code reads it from an http hook: 200 and the JSON body", async () => {
    const reply = await post(guard.url, events["a destructive command"]);
    expect([reply.status, reply.type]).toEqual([200, "application/json"]);
    expect(JSON.parse(reply.body)).toEqual({
      hookSpecificOutput: {
        hookEventName: "PreToolUse",
        permissionDecision: "deny",
        permissionDecisionReason: "Destructive command blocked: rm -rf build",
      },
    });
  });

  it("turns what would be exit 2 into the JSON that blocks on that event, since no HTTP status blocks", async () => {
    const reply = await post(guard.url, events["an event it cannot read"]);
    expect(reply.status).toBe(200);
    expect(JSON.parse(reply.body)).toMatchObject({
      hookSpecificOutput: {
        hookEventName: "PreToolUse",
        permissionDecision: "deny",
        permissionDecisionReason: expect.stringMatching(/cannot read the event: PreToolUse event is missing tool_name/),
      },
    });
  });

  it("answers many requests at once, each with its own decision", async () => {
    const commands = Array.from({ length: 24 }, (_, i) => (i % 3 === 0 ? `rm -rf dir${i}` : `ls dir${i}`));
    const replies = await Promise.all(
      commands.map((command, i) =>
        post(guard.url, event({ hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command }, tool_use_id: `p${i}` })),
      ),
    );
    replies.forEach((reply, i) => {
      if (i % 3 === 0)
        expect(JSON.parse(reply.body).hookSpecificOutput.permissionDecisionReason).toBe(`Destructive command blocked: rm -rf dir${i}`);
      else expect([reply.status, reply.body]).toEqual([200, ""]);
    });
  });

  it("takes only POST with a JSON body, addressed to loopback, of at most 16 MiB", async () => {
    const body = events["a plain command"];
    expect((await post(guard.url, body, {}, "GET")).status).toBe(405);
    expect((await post(guard.url, body, { "content-type": "text/plain" })).status).toBe(415);
    expect((await post(guard.url, body, { host: "attacker.example:80" })).status).toBe(403);
    const huge = Buffer.alloc(16 * 1024 * 1024 + 1, " ");
    expect((await post(guard.url, huge)).status).toBe(413);
    expect((await post(guard.url, body, { host: `localhost:${new URL(guard.url).port}` })).status).toBe(200);
  });
});

describe("agent-onion serve, reloading and stopping", () => {
  const dir = mkdtempSync(join(tmpdir(), "agent-onion-serve-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const src = join(root, "src", "index.ts");
  const guardWith = (reason: string) =>
    `import { createAgentStack, Reject } from ${JSON.stringify(src)};\nexport default createAgentStack().use("toolCall", { name: "g", before: () => Reject(${JSON.stringify(reason)}) });\n`;
  const pre = event({ hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "ls" }, tool_use_id: "t1" });
  const reasonOf = async (url: string): Promise<string> => {
    const reply = await post(url, pre);
    return (JSON.parse(reply.body) as { hookSpecificOutput: { permissionDecisionReason: string } }).hookSpecificOutput
      .permissionDecisionReason;
  };
  /** Wait until `check` holds; the test's own timeout bounds the wait, however slow the machine. */

  it(
    "loads the module afresh when it changes, and answers as claude-hook would when the new version does not load",
    async () => {
      const module = join(dir, "guard.ts");
      writeFileSync(module, guardWith("first version"));
      const server = await startServer([module]);
      try {
        expect(await reasonOf(server.url)).toBe("first version");
        writeFileSync(module, guardWith("second version"));
        await eventually(async () => (await reasonOf(server.url)) === "second version");
        expect(await reasonOf(server.url)).toBe("second version");
        expect(server.stderr).toContain(`reloaded ${module}`);
        writeFileSync(module, "export default {;\n");
        await eventually(async () => /cannot load/.test(await reasonOf(server.url)));
        expect(await reasonOf(server.url)).toMatch(/^agent-onion serve: cannot load .*guard\.ts/);
      } finally {
        expect(await stop(server)).toBe(0);
      }
    },
    scaled(60_000),
  );

  it(
    "starts a new hook process when its hook process dies, and answers as before",
    async () => {
      const server = await startServer(["--no-watch", fixture("settings", "guard-stack.ts")]);
      try {
        const deny = event({
          hook_event_name: "PreToolUse",
          tool_name: "Bash",
          tool_input: { command: "rm -rf build" },
          tool_use_id: "t1",
        });
        const reason = async () =>
          (JSON.parse((await post(server.url, deny)).body) as { hookSpecificOutput: { permissionDecisionReason: string } })
            .hookSpecificOutput.permissionDecisionReason;
        expect(await reason()).toBe("Destructive command blocked: rm -rf build");
        // Its hook process only: tsx may have started a helper process beside it.
        const children = execFileSync("ps", ["-o", "pid=,args=", "--ppid", String(server.child.pid)], { encoding: "utf8" })
          .trim()
          .split("\n")
          .filter((line) => line.includes("_hook-process"))
          .map((line) => Number(line.trim().split(/\s+/)[0]));
        expect(children).toHaveLength(1);
        process.kill(children[0]!, "SIGKILL");
        await eventually(
          async () => /starting a new one/.test(server.stderr) && (await reason()) === "Destructive command blocked: rm -rf build",
        );
        expect(server.stderr).toContain("the hook process exited (SIGKILL); starting a new one");
        expect(await reason()).toBe("Destructive command blocked: rm -rf build");
      } finally {
        expect(await stop(server)).toBe(0);
      }
    },
    scaled(60_000),
  );

  it(
    "denies when the stack has not decided within --timeout, and restarts a hook process the stack keeps busy for good",
    async () => {
      const server = await startServer(["--no-watch", "--timeout", "2", fixture("cli", "busy-stack.ts")]);
      try {
        // Loaded first: a request that waits for the load within --timeout is not the case here.
        while (!/loaded .*busy-stack/.test(server.stderr)) await new Promise((r) => setTimeout(r, 50));
        // A spin of a day: only a new hook process can answer anything after it.
        const reply = await post(
          server.url,
          event({ hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "spin", ms: 86_400_000 }, tool_use_id: "t1" }),
        );
        expect(JSON.parse(reply.body)).toMatchObject({
          hookSpecificOutput: { permissionDecision: "deny", permissionDecisionReason: expect.stringMatching(/did not decide within 2 s/) },
        });
        // The next event is decided, by the hook process started in place of the busy one.
        await eventually(async () => {
          const next = await post(
            server.url,
            event({ hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "ls", ms: 0 }, tool_use_id: "t2" }),
          );
          return next.status === 200 && !next.body.includes("did not decide") && !next.body.includes("exited");
        });
        expect(server.stderr).toMatch(
          /did not decide within 2 s \(--timeout\); stopping its hook process\n.*exited \(SIGKILL\); starting a new one/,
        );
      } finally {
        expect(await stop(server)).toBe(0);
      }
    },
    scaled(120_000),
  );

  it(
    "refuses --max-restarts, --port, --timeout and --max-buffered values out of range or not plain numbers, and an empty --host or --export, naming the flag",
    async () => {
      const cases: [string, string, RegExp][] = [
        ["--max-restarts", "", /--max-restarts must be a whole number of restarts, got ""/],
        ["--max-restarts", " ", /--max-restarts must be a whole number of restarts, got " "/],
        ["--max-restarts", "2.5", /--max-restarts must be a whole number of restarts, got "2.5"/],
        ["--max-restarts", "1e3", /--max-restarts must be a whole number of restarts, got "1e3"/],
        ["--max-restarts", "-1", /--max-restarts must be a whole number of restarts, got "-1"/],
        ["--port", "", /--port must be a port number \(0 to 65535\), got ""/],
        ["--port", "0x50", /--port must be a port number \(0 to 65535\), got "0x50"/],
        ["--port", "65536", /--port must be a port number \(0 to 65535\), got "65536"/],
        ["--timeout", "0", /--timeout must be a positive number of seconds, got "0"/],
        ["--max-buffered", "0", /--max-buffered must be a whole number of MiB, at least 1, got "0"/],
        ["--timeout", "0x3c", /--timeout must be a positive number of seconds, got "0x3c"/],
        ["--timeout", "1e-3", /--timeout must be a positive number of seconds, got "1e-3"/],
        ["--host", "", /--host must be an address, got an empty string/],
        ["--export", "", /--export must name an export of the module, got an empty string/],
      ];
      const results = await Promise.all(
        cases.map(([flag, value]) => runChild(process.execPath, [bin, "serve", `${flag}=${value}`, fixture("cli", "busy-stack.ts")], "")),
      );
      results.forEach((r, i) => {
        expect({ flag: cases[i]![0], value: cases[i]![1], code: r.code }).toEqual({ flag: cases[i]![0], value: cases[i]![1], code: 64 });
        expect(r.stderr).toMatch(cases[i]![2]);
      });
    },
    scaled(60_000),
  );

  it(
    "stops on SIGTERM after answering the request in flight",
    async () => {
      const server = await startServer(["--no-watch", fixture("cli", "slow-stack.ts")]);
      const pending = post(
        server.url,
        event({ hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "sleep", ms: 800 }, tool_use_id: "t1" }),
      );
      while (!server.stderr.includes("slow guard: started")) await new Promise((r) => setTimeout(r, 10));
      server.child.kill("SIGTERM");
      expect(await pending).toEqual({ status: 200, body: "", type: undefined });
      expect(await server.exited).toBe(0);
      expect(server.stderr).toMatch(/SIGTERM: finishing 1 request in flight, then stopping/);
    },
    scaled(30_000),
  );
});

describe("agent-onion serve, when the hook process keeps failing", () => {
  const dir = mkdtempSync(join(tmpdir(), "agent-onion-serve-fail-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const pre = event({ hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "ls" }, tool_use_id: "t1" });
  const denial = async (url: string): Promise<string> => {
    const reply = await post(url, pre);
    expect(reply.status).toBe(200);
    const answer = JSON.parse(reply.body) as { hookSpecificOutput: { permissionDecision: string; permissionDecisionReason: string } };
    expect(answer.hookSpecificOutput.permissionDecision).toBe("deny");
    return answer.hookSpecificOutput.permissionDecisionReason;
  };
  /** Wait until `check` holds; the test's own timeout bounds the wait, however slow the machine. */

  it("keeps serving, blocked, when the hook process dies while it loads the module, and says so", async () => {
    const module = fixture("cli", "exits-on-import.ts");
    const server = await startServer(["--no-watch", "--max-restarts", "1", module]);
    try {
      await eventually(() => /so no new one is started/.test(server.stderr));
      expect(server.stderr).toContain(`${module} did not load: the hook process exited (code 0) while loading it; starting a new one\n`);
      expect(server.stderr).toContain(
        `${module} did not load: the hook process exited (code 0) while loading it; it ended 2 times in a row, so no new one is started: every event is blocked until serve is restarted\n`,
      );
      expect(await denial(server.url)).toMatch(/no hook process is running \(the last one exited: code 0\)/);
    } finally {
      expect(await stop(server)).toBe(0);
    }
  }, 120_000);

  it("restarts a hook process that keeps dying with growing pauses, gives up after --max-restarts, and blocks meanwhile", async () => {
    const module = join(dir, "crashes.ts");
    writeFileSync(
      module,
      readFileSync(fixture("cli", "crashes-after-load.ts"), "utf8").replace('"agent-onion"', JSON.stringify(join(root, "src", "index.ts"))),
    );
    const server = await startServer([module, "--max-restarts", "3"]);
    try {
      // Every event is answered, and blocked, while the hook processes come and go.
      const answers: Promise<string>[] = [];
      await eventually(() => {
        answers.push(denial(server.url));
        return /so no new one is started/.test(server.stderr);
      });
      await Promise.all(answers);
      const lines = server.stderr.split("\n").filter((line) => line.includes("exited (code 3)"));
      expect(lines.map((line) => /; (starting a new one(?: in [\d.]+ s)?|it ended \d+ times in a row)/.exec(line)?.[1])).toEqual([
        "starting a new one",
        "starting a new one in 0.1 s",
        "starting a new one in 0.2 s",
        "it ended 4 times in a row",
      ]);
      expect(lines[3]).toMatch(
        /every event is blocked until the module \(or a file beside it that it imports\) changes or serve is restarted$/,
      );
      expect(await denial(server.url)).toMatch(/no hook process is running \(the last one exited: code 3\)/);
      // A change to the module starts afresh.
      writeFileSync(
        module,
        `import { createAgentStack, Reject } from ${JSON.stringify(join(root, "src", "index.ts"))};\nexport default createAgentStack().use("toolCall", { name: "g", before: () => Reject("fixed") });\n`,
      );
      await eventually(async () => (await denial(server.url)) === "fixed");
    } finally {
      expect(await stop(server)).toBe(0);
    }
  }, 180_000);

  it("does not count a file the module writes beside itself as a change: it still gives up; a change of a file it imports counts", async () => {
    const own = mkdtempSync(join(tmpdir(), "agent-onion-serve-writes-"));
    try {
      const module = join(own, "writes-state.ts");
      const helper = join(own, "reason.ts");
      const helperWith = (crash: boolean, reason: string) =>
        `export const crash = ${crash};\nexport const reason = ${JSON.stringify(reason)};\n`;
      writeFileSync(helper, helperWith(true, "crashing"));
      writeFileSync(
        module,
        `import { writeFileSync } from "node:fs";\nimport { createAgentStack, Reject } from ${JSON.stringify(join(root, "src", "index.ts"))};\nimport { crash, reason } from "./reason.js";\n// State beside the module, different at every load.\nwriteFileSync(${JSON.stringify(join(own, "state.json"))}, JSON.stringify({ pid: process.pid }));\nif (crash) setTimeout(() => process.exit(3), 100);\nexport default createAgentStack().use("toolCall", { name: "g", before: () => Reject(reason) });\n`,
      );
      const server = await startServer([module, "--max-restarts", "2"]);
      try {
        await eventually(() => /so no new one is started/.test(server.stderr));
        expect(server.stderr).not.toContain("reloaded");
        expect(await denial(server.url)).toMatch(/no hook process is running \(the last one exited: code 3\)/);
        writeFileSync(helper, helperWith(false, "fixed in the helper"));
        await eventually(async () => (await denial(server.url)) === "fixed in the helper");
        expect(server.stderr).toContain(`reloaded ${module}`);
      } finally {
        expect(await stop(server)).toBe(0);
      }
    } finally {
      rmSync(own, { recursive: true, force: true });
    }
  }, 180_000);

  it("blocks at once, and restarts with pauses, when a new hook process cannot even be started", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "agent-onion-serve-cwd-"));
    const module = join(dir, "unstartable.ts");
    const guard = (reason: string) =>
      `import { createAgentStack, Reject } from ${JSON.stringify(join(root, "src", "index.ts"))};\nexport default createAgentStack().use("toolCall", { name: "g", before: () => Reject(${JSON.stringify(reason)}) });\n`;
    writeFileSync(module, guard("first"));
    const server = await startServer([module, "--max-restarts", "1"], cwd);
    try {
      expect(await denial(server.url)).toBe("first");
      // The reload's hook process is started in a working directory that is gone: it never runs.
      rmSync(cwd, { recursive: true, force: true });
      writeFileSync(module, guard("second"));
      await eventually(() => /so no new one is started/.test(server.stderr));
      expect(server.stderr).toContain(`${module} did not load: the hook process exited (it could not be started: ENOENT) while loading it`);
      expect(await denial(server.url)).toMatch(/no hook process is running \(the last one exited: it could not be started: ENOENT\)/);
    } finally {
      expect(await stop(server)).toBe(0);
    }
  }, 120_000);

  it("kills a hook process still loading a reload when it stops", async () => {
    const module = join(dir, "reloads-to-a-spin.ts");
    const spinPid = join(dir, "spin.pid");
    writeFileSync(
      module,
      `import { createAgentStack, Reject } from ${JSON.stringify(join(root, "src", "index.ts"))};\nexport default createAgentStack().use("toolCall", { name: "g", before: () => Reject("first") });\n`,
    );
    const server = await startServer([module]);
    let pid = 0;
    try {
      expect(await denial(server.url)).toBe("first");
      writeFileSync(
        module,
        `import { writeFileSync } from "node:fs";\nwriteFileSync(${JSON.stringify(spinPid)}, String(process.pid));\nwhile (true) {}\n`,
      );
      await eventually(() => {
        try {
          pid = Number(readFileSync(spinPid, "utf8"));
        } catch {
          return false;
        }
        return pid > 0;
      });
      expect(await stop(server)).toBe(0);
      await eventually(() => gone(pid));
    } finally {
      try {
        if (pid > 0) process.kill(pid, "SIGKILL");
      } catch {
        // gone, as it should be
      }
    }
  }, 120_000);

  it("kills the command hooks of a hook process it stops for --timeout, with what they started outside their group", async () => {
    const module = join(dir, "hangs.ts");
    const hookPid = join(dir, "hook.pid");
    const detachedPid = join(dir, "detached.pid");
    const command = `setsid sleep 1001 & echo $! > ${detachedPid}; echo $$ > ${hookPid}; wait`;
    writeFileSync(
      module,
      `import { createAgentStack } from ${JSON.stringify(join(root, "src", "index.ts"))};\nimport { commandHook } from ${JSON.stringify(join(root, "src", "executors", "index.ts"))};\nexport default createAgentStack().use("toolCall", commandHook({ event: "PreToolUse", command: ${JSON.stringify(command)}, timeoutMs: 600_000 }));\n`,
    );
    const server = await startServer(["--no-watch", "--timeout", "8", module]);
    const pids: number[] = [];
    try {
      await eventually(() => /loaded .*hangs\.ts/.test(server.stderr));
      expect(await denial(server.url)).toMatch(/did not decide within 8 s/);
      await eventually(() => /stopping its hook process/.test(server.stderr));
      pids.push(Number(readFileSync(hookPid, "utf8")), Number(readFileSync(detachedPid, "utf8")));
      expect(pids.every((pid) => Number.isInteger(pid) && pid > 0)).toBe(true);
      await eventually(() => pids.every(gone));
    } finally {
      for (const pid of pids)
        try {
          process.kill(pid, "SIGKILL");
        } catch {
          // gone, as it should be
        }
      expect(await stop(server)).toBe(0);
    }
  }, 120_000);
});

describe("agent-onion serve, stopped twice", () => {
  const dir = mkdtempSync(join(tmpdir(), "agent-onion-serve-stop-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  for (const signal of ["SIGTERM", "SIGINT"] as const)
    it(
      `stops at once on a second ${signal} while draining: kills the command hooks, blocks what was in flight, exits non-zero`,
      async () => {
        const module = join(dir, `waits-${signal}.ts`);
        const hookPid = join(dir, `hook-${signal}.pid`);
        writeFileSync(
          module,
          `import { createAgentStack } from ${JSON.stringify(join(root, "src", "index.ts"))};\nimport { commandHook } from ${JSON.stringify(join(root, "src", "executors", "index.ts"))};\nexport default createAgentStack().use("toolCall", commandHook({ event: "PreToolUse", command: ${JSON.stringify(`echo $$ > ${hookPid}; sleep 1001`)}, timeoutMs: 600_000 }));\n`,
        );
        const server = await startServer(["--no-watch", module]);
        let pid = 0;
        try {
          const pending = post(
            server.url,
            event({ hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "ls" }, tool_use_id: "t1" }),
          );
          await eventually(() => {
            try {
              pid = Number(readFileSync(hookPid, "utf8"));
            } catch {
              return false;
            }
            return pid > 0;
          });
          server.child.kill(signal);
          await eventually(() => server.stderr.includes(`${signal}: finishing 1 request in flight, then stopping`));
          server.child.kill(signal);
          expect(await server.exited).toBe(signal === "SIGTERM" ? 143 : 130);
          const reply = await pending;
          expect(reply.status).toBe(200);
          expect(JSON.parse(reply.body)).toMatchObject({
            hookSpecificOutput: {
              permissionDecision: "deny",
              permissionDecisionReason: expect.stringMatching(/exited \(SIGKILL\) before it answered/),
            },
          });
          expect(server.stderr).toContain(`${signal} again: stopping now`);
          await eventually(() => gone(pid));
        } finally {
          server.child.kill("SIGKILL");
          try {
            if (pid > 0) process.kill(pid, "SIGKILL");
          } catch {
            // gone, as it should be
          }
        }
      },
      scaled(60_000),
    );
});

describe("agent-onion serve, when its hook process is killed from outside", () => {
  const dir = mkdtempSync(join(tmpdir(), "agent-onion-serve-oom-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const pidIn = (file: string): number => {
    try {
      return Number(readFileSync(file, "utf8"));
    } catch {
      return 0;
    }
  };

  it(
    "kills the command hooks it was running, with what they started in a session of their own, not what a finished one left",
    async () => {
      const module = join(dir, "runs-long.ts");
      const hookPid = join(dir, "hook.pid");
      const detachedPid = join(dir, "detached.pid");
      const leftoverPid = join(dir, "leftover.pid");
      // The first run ends at once and leaves a server behind (in its session, as `nohup ... &` does); the second runs on.
      const command = `if [ ! -e ${leftoverPid} ]; then nohup sleep 1004 >/dev/null 2>&1 & echo $! > ${leftoverPid}; exit 0; fi; setsid sleep 1003 & echo $! > ${detachedPid}; echo $$ > ${hookPid}; wait`;
      writeFileSync(
        module,
        `import { createAgentStack } from ${JSON.stringify(join(root, "src", "index.ts"))};\nimport { commandHook } from ${JSON.stringify(join(root, "src", "executors", "index.ts"))};\nexport default createAgentStack().use("toolCall", commandHook({ event: "PreToolUse", command: ${JSON.stringify(command)}, timeoutMs: 600_000 }));\n`,
      );
      const server = await startServer(["--no-watch", module]);
      const pids: number[] = [];
      try {
        const pre = event({ hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "ls" }, tool_use_id: "t1" });
        expect((await post(server.url, pre)).status).toBe(200);
        const leftover = pidIn(leftoverPid);
        expect(leftover).toBeGreaterThan(0);
        pids.push(leftover);
        const pending = post(server.url, pre);
        await eventually(() => pidIn(hookPid) > 0 && pidIn(detachedPid) > 0);
        pids.push(pidIn(hookPid), pidIn(detachedPid));
        // The hook process is the command hook's parent (serve may have other children: tsx's esbuild).
        const stat = readFileSync(`/proc/${pids[1]}/stat`, "latin1");
        const hookProcess = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
        expect(execFileSync("ps", ["-o", "ppid=", "-p", String(hookProcess)], { encoding: "utf8" }).trim()).toBe(String(server.child.pid));
        process.kill(hookProcess, "SIGKILL");
        expect(JSON.parse((await pending).body)).toMatchObject({
          hookSpecificOutput: {
            permissionDecision: "deny",
            permissionDecisionReason: expect.stringMatching(/exited \(SIGKILL\) before it answered/),
          },
        });
        await eventually(() => pids.slice(1).every(gone));
        expect(server.stderr).toContain("the hook process exited (SIGKILL); killed the 1 command hook it was running");
        // What a finished run left behind is the user's, as when the hook process ends normally.
        expect(gone(leftover)).toBe(false);
      } finally {
        for (const pid of pids)
          try {
            process.kill(pid, "SIGKILL");
          } catch {
            // gone, as it should be
          }
        expect(await stop(server)).toBe(0);
      }
    },
    scaled(60_000),
  );
});

describe("agent-onion serve, flooded", () => {
  it(
    "answers blocked at once, not refused, an event that would take the bodies being read past --max-buffered",
    async () => {
      const server = await startServer(["--no-watch", "--max-buffered", "1", fixture("settings", "guard-stack.ts")]);
      try {
        const pre = event({ hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "ls" }, tool_use_id: "t1" });
        const padded = (bytes: number): [string, string] => {
          const start = `{"session_id":"s1","cwd":"/tmp","hook_event_name":"PreToolUse","tool_name":"Bash","tool_use_id":"t2","tool_input":{"command":"ls","pad":"`;
          return [start + "x".repeat(bytes), `"}}`];
        };
        // A: 900 KiB sent, the rest held back, so the server holds it while B comes.
        const [startA, endA] = padded(900 * 1024);
        let replyA!: Promise<Reply>;
        const a = await new Promise<ReturnType<typeof request>>((sent) => {
          replyA = new Promise<Reply>((resolve, reject) => {
            const req = request(server.url, { method: "POST", headers: { "content-type": "application/json" } }, (res) => {
              let text = "";
              res.on("data", (c: Buffer) => (text += c.toString()));
              res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text, type: res.headers["content-type"] }));
            });
            req.on("error", reject);
            req.write(startA, () => sent(req));
          });
        });
        // B alone fits; once the server has read A's bytes it does not, and is blocked.
        const [startB, endB] = padded(200 * 1024);
        let b: Reply;
        do b = await post(server.url, startB + endB);
        while (b.body === "");
        expect(b.status).toBe(200);
        expect(JSON.parse(b.body)).toMatchObject({
          hookSpecificOutput: {
            hookEventName: "PreToolUse",
            permissionDecision: "deny",
            permissionDecisionReason: expect.stringMatching(/more than 1 MiB of events are being read at once \(--max-buffered\)/),
          },
        });
        // A itself is answered by the stack, and what it held is given back.
        a.end(endA);
        expect(await replyA).toEqual({ status: 200, body: "", type: undefined });
        expect(await post(server.url, startB + endB)).toEqual({ status: 200, body: "", type: undefined });
        expect(await post(server.url, pre)).toEqual({ status: 200, body: "", type: undefined });
      } finally {
        expect(await stop(server)).toBe(0);
      }
    },
    scaled(60_000),
  );
});

describe("agent-onion serve, while the module loads", () => {
  const dir = mkdtempSync(join(tmpdir(), "agent-onion-serve-load-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const src = join(root, "src", "index.ts");
  const pre = event({ hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "ls" }, tool_use_id: "t1" });
  /** A module whose load holds its process (as a slow synchronous import does) until `gate` exists, then runs `then`. */
  const gated = (name: string, gate: string, then: string): string => {
    const module = join(dir, name);
    writeFileSync(
      module,
      `import { existsSync } from "node:fs";\nimport { createAgentStack, Reject } from ${JSON.stringify(src)};\nprocess.stderr.write("loading ${name}\\n");\nconst nap = new Int32Array(new SharedArrayBuffer(4));\nwhile (!existsSync(${JSON.stringify(gate)})) Atomics.wait(nap, 0, 0, 20);\n${then}\n`,
    );
    return module;
  };
  /** POST `body` and resolve `sent` once the request is on its way (connected and written). */
  const postAndSend = (url: string, body: string): { sent: Promise<void>; reply: Promise<Reply> } => {
    let sent!: () => void;
    const onItsWay = new Promise<void>((r) => (sent = r));
    const reply = new Promise<Reply>((resolve, reject) => {
      const req = request(url, { method: "POST", headers: { "content-type": "application/json" } }, (res) => {
        let text = "";
        res.on("data", (c: Buffer) => (text += c.toString()));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text, type: res.headers["content-type"] }));
      });
      req.on("error", reject);
      req.end(body, () => sent());
    });
    return { sent: onItsWay, reply };
  };
  const decision = (reply: Reply): { permissionDecision: string; permissionDecisionReason: string } => {
    expect(reply.status).toBe(200);
    return (JSON.parse(reply.body) as { hookSpecificOutput: { permissionDecision: string; permissionDecisionReason: string } })
      .hookSpecificOutput;
  };

  it(
    "listens before the module has loaded, and answers what came meanwhile once it has: with the module, or blocked",
    async () => {
      const cases = {
        loads: {
          then: `export default createAgentStack().use("toolCall", { name: "g", before: () => Reject("the slow module decided") });`,
        },
        throws: { then: `throw new Error("broken on purpose");\nexport default createAgentStack();` },
        exits: { then: `process.exit(7);\nexport default createAgentStack();` },
      };
      const servers = await Promise.all(
        Object.entries(cases).map(async ([name, { then }]) => {
          const gate = join(dir, `${name}.gate`);
          const server = await startServer(["--no-watch", "--max-restarts", "0", gated(`${name}.ts`, gate, then)]);
          return { name, gate, server };
        }),
      );
      try {
        const replies = await Promise.all(
          servers.map(async ({ gate, server }) => {
            // The module cannot have loaded before the request is on its way: its gate opens only then.
            const { sent, reply } = postAndSend(server.url, pre);
            await sent;
            expect(server.stderr).not.toMatch(/loaded|did not load/);
            writeFileSync(gate, "");
            return decision(await reply);
          }),
        );
        expect(replies[0]).toMatchObject({ permissionDecision: "deny", permissionDecisionReason: "the slow module decided" });
        expect(replies[1]).toMatchObject({
          permissionDecision: "deny",
          permissionDecisionReason: expect.stringMatching(/cannot load .*broken on purpose/),
        });
        expect(replies[2]).toMatchObject({
          permissionDecision: "deny",
          permissionDecisionReason: expect.stringMatching(/the hook process exited \(code 7\) before it loaded the module/),
        });
      } finally {
        for (const { server } of servers) expect(await stop(server)).toBe(0);
      }
    },
    scaled(90_000),
  );

  it(
    "blocks an event that waited --timeout for a module still loading, and keeps loading it",
    async () => {
      const gate = join(dir, "late.gate");
      const server = await startServer([
        "--no-watch",
        "--timeout",
        "1",
        gated(
          "late.ts",
          gate,
          `export default createAgentStack().use("toolCall", { name: "g", before: () => Reject("late but loaded") });`,
        ),
      ]);
      try {
        expect(decision(await post(server.url, pre))).toMatchObject({
          permissionDecision: "deny",
          permissionDecisionReason: "agent-onion serve: the module did not load within 1 s (--timeout)",
        });
        writeFileSync(gate, "");
        while (!/loaded .*late\.ts/.test(server.stderr)) await new Promise((r) => setTimeout(r, 50));
        expect(decision(await post(server.url, pre)).permissionDecisionReason).toBe("late but loaded");
      } finally {
        expect(await stop(server)).toBe(0);
      }
    },
    scaled(60_000),
  );
});

describe("agent-onion serve, among its supervisor's signals", () => {
  const dir = mkdtempSync(join(tmpdir(), "agent-onion-serve-signals-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const slow = (ms: number, id: string): string =>
    event({ hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "sleep", ms }, tool_use_id: id });
  const started = async (server: Server, times: number): Promise<void> => {
    while ((server.stderr.match(/slow guard: started/g) ?? []).length < times) await new Promise((r) => setTimeout(r, 10));
  };
  /** The pid of serve's hook process (tsx may start a helper beside it). */
  const hookProcessOf = (server: Server): number => {
    const lines = execFileSync("ps", ["-o", "pid=,args=", "--ppid", String(server.child.pid)], { encoding: "utf8" })
      .trim()
      .split("\n");
    const line = lines.find((l) => l.includes("_hook-process"));
    expect(line).toBeDefined();
    return Number(line!.trim().split(/\s+/)[0]);
  };

  it(
    "answers a request that comes on an open connection while it drains, from the module, never with a 500",
    async () => {
      const server = await startServer(["--no-watch", fixture("cli", "slow-stack.ts")]);
      const { port } = new URL(server.url);
      const body = slow(3000, "t1");
      const plainCommand = event({ hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "ls" }, tool_use_id: "t2" });
      const framed = (text: string): string =>
        `POST / HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}`;
      // A client's kept-alive connection: its next request comes after the stop began, while the first is in flight.
      const socket = connect(Number(port), "127.0.0.1");
      let received = "";
      socket.on("data", (c: Buffer) => (received += c.toString()));
      const closed = new Promise((r) => socket.once("close", r));
      socket.write(framed(body));
      await started(server, 1);
      server.child.kill("SIGTERM");
      await eventually(() => /SIGTERM: finishing 1 request in flight/.test(server.stderr));
      socket.write(framed(plainCommand));
      await eventually(() => (received.match(/^HTTP\/1\.1 \d+/gm) ?? []).length === 2 || socket.destroyed);
      socket.destroy();
      await closed;
      expect(received.match(/^HTTP\/1\.1 \d+/gm)).toEqual(["HTTP/1.1 200", "HTTP/1.1 200"]);
      expect(await server.exited).toBe(0);
      expect(server.stderr).not.toMatch(/request failed/);
    },
    scaled(60_000),
  );

  it(
    "keeps answering when a Ctrl-C or a supervisor's SIGTERM reaches the hook process too",
    async () => {
      const server = await startServer(["--no-watch", fixture("cli", "slow-stack.ts")]);
      try {
        const pending = post(server.url, slow(800, "t1"));
        await started(server, 1);
        const child = hookProcessOf(server);
        process.kill(child, "SIGINT");
        process.kill(child, "SIGTERM");
        expect(await pending).toEqual({ status: 200, body: "", type: undefined });
        expect(gone(child)).toBe(false);
        expect(server.stderr).not.toMatch(/exited \(SIG(INT|TERM)\)/);
      } finally {
        expect(await stop(server)).toBe(0);
      }
    },
    scaled(60_000),
  );

  it(
    "leaves no hook process behind when it is killed while the module is still loading",
    async () => {
      // .mts: an ES module, so its top-level await hangs the load rather than failing it.
      const module = join(dir, "never-loads.mts");
      // A timer keeps the process alive: only the loss of serve can end it.
      writeFileSync(module, "setInterval(() => {}, 1000);\nawait new Promise(() => {});\nexport default {};\n");
      const server = await startServer(["--no-watch", module]);
      let child = 0;
      try {
        await eventually(() => {
          try {
            child = hookProcessOf(server);
            return true;
          } catch {
            return false;
          }
        });
        server.child.kill("SIGKILL");
        await server.exited.catch(() => undefined);
        await eventually(() => gone(child));
      } finally {
        try {
          if (child > 0) process.kill(child, "SIGKILL");
        } catch {
          // gone, as it should be
        }
      }
    },
    scaled(60_000),
  );

  it(
    "lets a hook process a reload replaced finish the request it is answering when it stops",
    async () => {
      const module = join(dir, "slow.ts");
      const source = (version: number): string =>
        `import { Continue, createAgentStack } from ${JSON.stringify(join(root, "src", "index.ts"))};\n` +
        `export default createAgentStack().use("toolCall", { name: "slow${version}", before: async (call) => {\n` +
        `  process.stderr.write("slow guard: started\\n");\n` +
        `  await new Promise((r) => setTimeout(r, Number(call.input.ms ?? 0)));\n  return Continue;\n} });\n`;
      writeFileSync(module, source(1));
      const server = await startServer([module]);
      try {
        await eventually(() => server.stderr.includes(`loaded ${module}`));
        const pending = post(server.url, slow(4000, "t1"));
        await started(server, 1);
        writeFileSync(module, source(2));
        await eventually(() => server.stderr.includes(`reloaded ${module}`));
        server.child.kill("SIGTERM");
        expect(await pending).toEqual({ status: 200, body: "", type: undefined });
        expect(await server.exited).toBe(0);
      } finally {
        server.child.kill("SIGKILL");
      }
    },
    scaled(60_000),
  );
});
