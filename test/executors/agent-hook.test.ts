import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createScriptedModel } from "../../src/agent/scripted-model.ts";
import type { StopRequest } from "../../src/agent/types.ts";
import { agentHook } from "../../src/executors/agent-hook.ts";
import { readOnlyTools } from "../../src/executors/readonly-tools.ts";
import { tempDir } from "./helpers.ts";
import { agentStack } from "./stack-helpers.ts";

const project = (): string => {
  const dir = tempDir("agent-hook-");
  mkdirSync(join(dir, "src"));
  writeFileSync(join(dir, "src", "app.ts"), "export const x = 1;\n// TODO: handle errors\n");
  writeFileSync(join(dir, "notes.md"), "all done\n");
  return dir;
};
const stopReq: StopRequest = { reason: "end_turn", blockedCount: 0, lastMessage: "Finished." };
const stop = () => ({ stop: true as const });
const toolText = (model: ReturnType<typeof createScriptedModel>, i: number) =>
  model.requests[i]!.messages.filter((m) => m.role === "tool")
    .map((m) => m.content)
    .join("\n");

describe("agentHook", () => {
  it("investigates with read-only tools and blocks the stop when it finds a problem", async () => {
    const cwd = project();
    const model = createScriptedModel({
      turns: [
        { toolCalls: [{ name: "Grep", input: { text: "TODO" } }] },
        (req) =>
          req.messages.some((m) => m.role === "tool" && m.content.includes("src/app.ts:2"))
            ? '{"ok": false, "reason": "src/app.ts:2 still has a TODO"}'
            : '{"ok": true}',
      ],
    });
    const stack = agentStack().use(
      "stop",
      agentHook({ event: "Stop", name: "verifier", model, prompt: "Are all TODOs resolved? $ARGUMENTS", cwd, timeoutMs: 5000 }),
    );
    expect(await stack.run("stop", stopReq, stop)).toMatchObject({ _tag: "Rejected", reason: "src/app.ts:2 still has a TODO" });
    expect(model.requests[0]!.tools?.map((t) => t.name)).toEqual(["Read", "Glob", "Grep"]);
  });

  it("blocks on ok:false even when the verifier adds impossible, which agent hooks do not have", async () => {
    const model = createScriptedModel({ turns: ['{"ok": false, "reason": "tests fail", "impossible": true}'] });
    const stack = agentStack().use("stop", agentHook({ event: "Stop", model, prompt: "$ARGUMENTS", cwd: project(), timeoutMs: 5000 }));
    expect(await stack.run("stop", stopReq, stop)).toMatchObject({ _tag: "Rejected", reason: "tests fail" });
  });

  it("asks for modelId when given (settings: the handler's model field)", async () => {
    const model = createScriptedModel({ turns: ['{"ok": true}'] });
    const stack = agentStack().use(
      "stop",
      agentHook({ event: "Stop", model, modelId: "claude-haiku-x", prompt: "$ARGUMENTS", cwd: project(), timeoutMs: 5000 }),
    );
    expect((await stack.run("stop", stopReq, stop))._tag).toBe("Completed");
    expect(model.requests.map((r) => r.model)).toEqual(["claude-haiku-x"]);
  });

  it("cannot read outside its directory", async () => {
    const cwd = project();
    const model = createScriptedModel({
      turns: [{ toolCalls: [{ name: "Read", input: { file_path: "../../../../etc/hostname" } }] }, '{"ok": true}'],
    });
    const stack = agentStack().use("stop", agentHook({ event: "Stop", model, prompt: "$ARGUMENTS", cwd, timeoutMs: 5000 }));
    expect((await stack.run("stop", stopReq, stop))._tag).toBe("Completed");
    expect(toolText(model, 1)).toMatch(/outside/);
  });

  it("fails closed when the verifier answers prose", async () => {
    const model = createScriptedModel({ turns: ["Looks fine to me!"] });
    const stack = agentStack().use(
      "stop",
      agentHook({ event: "Stop", name: "verifier", model, prompt: "$ARGUMENTS", cwd: project(), timeoutMs: 5000 }),
    );
    const outcome = await stack.run("stop", stopReq, stop);
    expect(outcome).toMatchObject({ _tag: "Rejected" });
    expect((outcome as { reason: string }).reason).toMatch(/did not answer a JSON verdict: "Looks fine to me!"/);
  });
});

describe("readOnlyTools", () => {
  it("reads, globs and greps inside the root only", async () => {
    const root = project();
    const [read, glob, grep] = await readOnlyTools(root);
    const opts = { signal: new AbortController().signal, toolCallId: "t" };
    expect(await read!.execute({ file_path: "notes.md" }, opts)).toBe("all done\n");
    expect(await glob!.execute({ pattern: "**/*.ts" }, opts)).toBe("src/app.ts");
    expect(await grep!.execute({ text: "TODO" }, opts)).toBe("src/app.ts:2: // TODO: handle errors");
    await expect(read!.execute({ file_path: "/etc/hostname" }, opts)).rejects.toThrow(/outside/);
    await expect(grep!.execute({ text: "x", path: ".." }, opts)).rejects.toThrow(/outside/);
  });

  it("globs as a shell does: anchored at the root, dotfiles hidden unless the pattern names a dot segment", async () => {
    const root = tempDir();
    for (const f of ["top.ts", "src/a.ts", "src/deep/b.ts", ".env", "src/.secret.ts", ".config/x.ts", "README.md"]) {
      mkdirSync(join(root, f, ".."), { recursive: true });
      writeFileSync(join(root, f), "");
    }
    const [, glob] = await readOnlyTools(root);
    const opts = { signal: new AbortController().signal, toolCallId: "t" };
    const found = async (pattern: string) =>
      String(await glob!.execute({ pattern }, opts))
        .split("\n")
        .filter(Boolean)
        .sort();
    expect(await found("*.ts")).toEqual(["top.ts"]);
    expect(await found("**/*.ts")).toEqual(["src/a.ts", "src/deep/b.ts", "top.ts"]);
    expect(await found("*")).toEqual(["README.md", "top.ts"]);
    expect(await found(".env")).toEqual([".env"]);
    expect(await found("src/.*")).toEqual(["src/.secret.ts"]);
    expect(await found(".config/*.ts")).toEqual([".config/x.ts"]);
    expect(await found("?op.ts")).toEqual(["top.ts"]);
  });

  it("matches a model-written pattern full of stars in linear time, so it cannot stall the process", async () => {
    const root = tempDir();
    writeFileSync(join(root, "a".repeat(60)), "");
    const [, glob] = await readOnlyTools(root);
    // picomatch's RegExp took 8.7 s of CPU here, blocking every timer and the abort signal. CPU
    // time, not wall time: a busy machine stretches the one, not the other.
    const start = process.cpuUsage();
    expect(await glob!.execute({ pattern: "*a*a*a*a*a*a*b" }, { signal: new AbortController().signal, toolCallId: "t" })).toBe("");
    const used = process.cpuUsage(start);
    expect((used.user + used.system) / 1000).toBeLessThan(1_000);
  });

  it("reads only the first maxFileBytes of a large file and says how much it left out", async () => {
    const root = project();
    writeFileSync(join(root, "big.txt"), "x".repeat(300_005));
    const [read] = await readOnlyTools(root, { maxFileBytes: 5 });
    expect(await read!.execute({ file_path: "big.txt" }, { signal: new AbortController().signal, toolCallId: "t" })).toBe(
      "xxxxx\n[truncated: 300000 more bytes]",
    );
  });

  it("refuses to read a FIFO, which could wait forever", async () => {
    const root = project();
    execFileSync("mkfifo", [join(root, "pipe")]);
    const [read] = await readOnlyTools(root);
    await expect(read!.execute({ file_path: "pipe" }, { signal: new AbortController().signal, toolCallId: "t" })).rejects.toThrow(
      /pipe is not a regular file/,
    );
  });

  it("refuses limits that would remove a cap or make every call empty, when the tools are made", async () => {
    const root = project();
    await expect(readOnlyTools(root, { maxFileBytes: Number.NaN })).rejects.toThrow(
      /readOnlyTools: maxFileBytes must be a finite number of bytes, 0 or more, got NaN/,
    );
    await expect(readOnlyTools(root, { maxFileBytes: -5 })).rejects.toThrow(/maxFileBytes/);
    await expect(readOnlyTools(root, { maxResults: Number.NaN })).rejects.toThrow(
      /readOnlyTools: maxResults must be a whole number from 1, got NaN/,
    );
  });
});
