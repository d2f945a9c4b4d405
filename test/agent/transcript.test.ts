/**
 * The session transcript the reference agent keeps: Claude Code's JSONL lines (held to what the
 * real Claude Code wrote in the same scenario, test/fixtures/claude-code/transcript-sample.json),
 * appended as the conversation goes, named to hooks as `metadata.transcriptPath`, a file per
 * session in a directory of the user's choosing, removed with its session in the default one.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  createAgent,
  createAgentStack,
  createScriptedModel,
  defaultTranscriptDir,
  removeTemporaryTranscripts,
  summarizeOldest,
  type Notification,
} from "../../src/agent/index.ts";
import { Continue, Reject } from "../../src/core/index.ts";
import { fromClaudePlugin } from "../../src/executors/index.ts";
import { fixtures } from "../support/claude-code/hooks.ts";
import { runAgentOnion } from "../support/claude-code/run-agent-onion.ts";
import { removeRunDirs } from "../support/claude-code/run-claude-code.ts";
import {
  fieldsNotIn,
  kindsOf,
  lineKind,
  transcriptSettings,
  transcriptTurns,
  type LineKind,
} from "../support/claude-code/transcript-kinds.ts";
import sample from "../fixtures/claude-code/transcript-sample.json" with { type: "json" };
import { bashTool } from "./helpers.ts";

afterAll(removeRunDirs);

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});
const tempDir = (): string => {
  const dir = mkdtempSync(join(tmpdir(), "agent-onion-transcript-"));
  dirs.push(dir);
  return dir;
};

const read = (path: string): Record<string, unknown>[] =>
  readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as Record<string, unknown>);

const claude = sample.lines as Record<LineKind, Record<string, unknown>>;

describe("the transcript, against what Claude Code writes in the same session", () => {
  const ours = runAgentOnion({ settings: transcriptSettings, turns: transcriptTurns() }).then((run) => run.transcript());

  it("has the lines Claude Code writes, in the order it writes them", async () => {
    expect(kindsOf(await ours)).toEqual(sample.kinds);
  });

  it("writes every kind of line with fields Claude Code's line of that kind has, of the same JSON types", async () => {
    const lines = await ours;
    for (const line of lines) {
      const kind = lineKind(line);
      expect(kind, JSON.stringify(line)).toBeDefined();
      expect(fieldsNotIn(line, claude[kind!]), `${kind}: ${JSON.stringify(line)}`).toEqual([]);
    }
  });

  it("carries what hook scripts read as Claude Code does: the prompt, the text, the tool calls, the results, the feedback", async () => {
    const lines = await ours;
    const of = (kind: LineKind) => lines.filter((l) => lineKind(l) === kind);
    expect(of("prompt")[0]!.message).toEqual(claude.prompt.message);
    expect(of("assistant-text").map((l) => (l.message as { content: unknown }).content)).toEqual([
      [{ type: "text", text: "Let me look." }],
      [{ type: "text", text: "First." }],
      [{ type: "text", text: "Second." }],
    ]);
    const toolUses = of("assistant-tool-use").map((l) => (l.message as { content: { name: string; input: unknown }[] }).content[0]);
    expect(toolUses.map((u) => [u!.name, u!.input])).toEqual([
      ["Bash", { command: "echo hello", description: "say hello" }],
      ["Bash", { command: "echo bad; exit 3", description: "fail" }],
    ]);
    expect(of("tool-result")[0]!.message).toEqual({
      role: "user",
      content: [
        {
          type: "tool_result",
          tool_use_id: expect.any(String),
          content: '{"stdout":"hello","stderr":"","interrupted":false,"isImage":false}',
          is_error: false,
        },
      ],
    });
    expect(of("tool-result")[0]!.toolUseResult).toEqual({ stdout: "hello", stderr: "", interrupted: false, isImage: false });
    expect(of("tool-error")[0]!.toolUseResult).toMatch(/^Error: .*Exit code 3\nbad$/);
    expect(of("meta")[0]!.message).toEqual(claude.meta.message);
    expect((of("hook-context")[0]!.attachment as { content: unknown }).content).toEqual(
      (claude["hook-context"].attachment as { content: unknown }).content,
    );
    // A tool result names the assistant line of its call, and the lines form one chain.
    const byUuid = new Map(lines.map((l) => [l.uuid, l]));
    expect(byUuid.get(of("tool-result")[0]!.sourceToolAssistantUUID)).toBe(of("assistant-tool-use")[0]);
    for (const [i, line] of lines.entries()) expect(line.parentUuid).toBe(i === 0 ? null : lines[i - 1]!.uuid);
  });
});

describe("the transcript file", () => {
  const model = () =>
    createScriptedModel({ turns: [{ text: "Listing.", toolCalls: [{ name: "Bash", input: { command: "ls" }, id: "c1" }] }, "Two files."] });

  it("is named to every point run as metadata.transcriptPath, and hooks read the conversation in it as it goes", async () => {
    const dir = tempDir();
    let seenAtStop: string[] = [];
    const stack = createAgentStack().use("stop", {
      name: "read-transcript",
      before: (_stop, ctx) => {
        seenAtStop = read(ctx.metadata.transcriptPath as string).map(
          (l) => `${String(l.type)}:${JSON.stringify((l.message as { content?: unknown } | undefined)?.content)}`,
        );
        return Continue;
      },
    });
    const session = await createAgent({ model: model(), stack, tools: [bashTool()], transcript: { dir } }).session({ sessionId: "s-1" });

    await session.prompt("list files");

    expect(session.transcriptPath).toBe(join(dir, "s-1.jsonl"));
    expect(seenAtStop).toEqual([
      'user:"list files"',
      'assistant:[{"type":"text","text":"Listing."}]',
      'assistant:[{"type":"tool_use","id":"c1","name":"Bash","input":{"command":"ls"}}]',
      'user:[{"type":"tool_result","tool_use_id":"c1","content":"ran: ls","is_error":false}]',
      'assistant:[{"type":"text","text":"Two files."}]',
    ]);
    await session.close();
    expect(existsSync(join(dir, "s-1.jsonl"))).toBe(true);
  });

  it("is kept in the default directory while the session is open, and removed once it closes", async () => {
    const session = await createAgent({ model: model(), stack: createAgentStack(), tools: [bashTool()] }).session();
    await session.prompt("list files");
    const path = session.transcriptPath!;

    expect(path.startsWith(defaultTranscriptDir())).toBe(true);
    expect(read(path)).toHaveLength(5);
    await session.close();
    expect(existsSync(path)).toBe(false);
  });

  it("is removed from the default directory when a hook refuses the session", async () => {
    const stack = createAgentStack().use("sessionStart", { name: "closed", before: () => Reject("closed today") });
    const before = new Set(existsSync(defaultTranscriptDir()) ? readdirSync(defaultTranscriptDir()) : []);

    await expect(createAgent({ model: model(), stack }).session({ sessionId: "refused-session" })).rejects.toThrow(/closed today/);

    expect(readdirSync(defaultTranscriptDir()).filter((f) => !before.has(f))).toEqual([]);
  });

  it("not kept, is removed when the process exits, also for a session nobody closed", async () => {
    const dir = tempDir();
    const agentModule = new URL("../../src/agent/index.ts", import.meta.url).href;
    const script = `
      const { createAgent, createAgentStack, createScriptedModel } = await import(${JSON.stringify(agentModule)});
      const agent = createAgent({ model: createScriptedModel({ turns: [], whenDone: "ok" }), stack: createAgentStack(), transcript: { dir: ${JSON.stringify(dir)}, keep: false } });
      const session = await agent.session({ sessionId: "left-open" });
      await session.prompt("hi");
      console.log(session.transcriptPath);`;
    const path = execFileSync(process.execPath, ["--import", "tsx", "--input-type=module", "--eval", script], { encoding: "utf8" }).trim();

    expect(path).toBe(join(dir, "left-open.jsonl"));
    expect(existsSync(path)).toBe(false);
  });

  it("not kept, is removed by removeTemporaryTranscripts for a session nobody closed, sub-agents' files included, and never written again", async () => {
    const dir = tempDir();
    const turns = [{ toolCalls: [{ name: "helper", input: { prompt: "look" }, id: "h1" }] }, "Done.", "Again."];
    const agent = createAgent({
      model: createScriptedModel({ turns, whenDone: "helped" }),
      subagents: [{ name: "helper", system: "You help." }],
      stack: createAgentStack(),
      transcript: { dir, keep: false },
    });
    const session = await agent.session({ sessionId: "left-open" });
    await session.prompt("go");
    expect(readdirSync(dir).sort()).toEqual(["left-open", "left-open.jsonl"]);

    removeTemporaryTranscripts();
    await session.prompt("once more");

    expect(readdirSync(dir)).toEqual([]);
  });

  it("is not kept with transcript: false, and then hooks get no transcriptPath", async () => {
    let given: unknown = "unset";
    const stack = createAgentStack().use("userPrompt", { name: "see", before: (_p, ctx) => void (given = ctx.metadata.transcriptPath) });
    const session = await createAgent({ model: model(), stack, tools: [bashTool()], transcript: false }).session();

    await session.prompt("list files");

    expect(session.transcriptPath).toBeUndefined();
    expect(given).toBeUndefined();
  });

  it("is the caller's own when their metadata names one: the agent writes nothing there", async () => {
    const dir = tempDir();
    const theirs = join(dir, "theirs.jsonl");
    writeFileSync(theirs, "");
    let given: unknown;
    const stack = createAgentStack().use("stop", { name: "see", before: (_s, ctx) => void (given = ctx.metadata.transcriptPath) });
    const session = await createAgent({ model: model(), stack, tools: [bashTool()], transcript: { dir } }).session({
      metadata: { transcriptPath: theirs },
    });

    await session.prompt("list files");

    expect(given).toBe(theirs);
    expect(readFileSync(theirs, "utf8")).toBe("");
    expect(readdirSync(dir)).toEqual(["theirs.jsonl"]);
  });

  it("gets a file name of its own for a session id that is no file name", async () => {
    const dir = tempDir();
    const agent = createAgent({
      model: createScriptedModel({ turns: [], whenDone: "ok" }),
      stack: createAgentStack(),
      transcript: { dir },
    });
    const a = await agent.session({ sessionId: "../../etc/passwd" });
    const b = await agent.session({ sessionId: "..%2F..%2Fetc%2Fpasswd" });

    expect(a.transcriptPath!.startsWith(`${dir}/`)).toBe(true);
    expect(a.transcriptPath).not.toBe(b.transcriptPath);
    expect(readdirSync(dir).sort()).toEqual([a.transcriptPath!, b.transcriptPath!].map((p) => p.slice(dir.length + 1)).sort());
  });

  it("writes a resumed conversation first when the session's transcript is new, so hooks read it whole", async () => {
    const dir = tempDir();
    const messages = [
      { role: "user" as const, content: "earlier question" },
      { role: "assistant" as const, content: "", toolCalls: [{ id: "c0", name: "Bash", input: { command: "pwd" } }] },
      { role: "tool" as const, content: "/repo", toolCallId: "c0", toolName: "Bash" },
      { role: "assistant" as const, content: "earlier answer" },
    ];
    const agent = createAgent({
      model: createScriptedModel({ turns: [], whenDone: "ok" }),
      stack: createAgentStack(),
      transcript: { dir },
    });
    const session = await agent.session({ sessionId: "resumed", messages });
    await session.prompt("next");
    await session.close();
    // Opened again on the same file: what is there is not written twice.
    await (await agent.session({ sessionId: "resumed", messages: session.messages })).close();

    expect(kindsOf(read(session.transcriptPath!))).toEqual([
      "prompt",
      "assistant-tool-use",
      "tool-result",
      "assistant-text",
      "prompt",
      "assistant-text",
    ]);
  });

  it("records a compaction as Claude Code's boundary, then the summary the conversation goes on from", async () => {
    const dir = tempDir();
    const agent = createAgent({
      model: createScriptedModel({ turns: [], whenDone: "fine" }),
      stack: createAgentStack(),
      transcript: { dir },
      compact: summarizeOldest({ keep: 1 }),
    });
    const session = await agent.session();
    await session.prompt("one");
    await session.prompt("two");

    await session.compact();

    const [boundary, summary] = read(session.transcriptPath!).slice(-2);
    expect(boundary).toMatchObject({
      type: "system",
      subtype: "compact_boundary",
      compactMetadata: { trigger: "manual", preTokens: expect.any(Number) },
    });
    expect(summary).toMatchObject({
      type: "user",
      isCompactSummary: true,
      message: { role: "user", content: expect.stringMatching(/^Summary of 3 earlier messages:/) },
    });
  });

  it("gives each sub-agent a transcript of its own beside the session's, named to its runs as agentTranscriptPath", async () => {
    const dir = tempDir();
    let named: unknown;
    const stack = createAgentStack().use("subagentStop", {
      name: "see",
      before: (_s, ctx) => void (named = ctx.metadata.agentTranscriptPath),
    });
    const model = createScriptedModel({
      turns: [],
      whenDone: (request) =>
        request.messages[0]?.content === "You help."
          ? "helped"
          : request.messages.at(-1)!.role === "user"
            ? { toolCalls: [{ name: "helper", input: { prompt: "help me" }, id: "h1" }] }
            : "done",
    });
    const session = await createAgent({ model, stack, subagents: [{ name: "helper", system: "You help." }], transcript: { dir } }).session({
      sessionId: "main",
    });

    await session.prompt("go");

    expect(named).toBe(join(dir, "main", "subagents", "agent-helper-h1.jsonl"));
    const side = read(named as string);
    expect(kindsOf(side)).toEqual(["prompt", "assistant-text"]);
    expect(side.every((l) => l.isSidechain === true && l.agentId === "helper-h1" && l.sessionId === "main")).toBe(true);
    expect(kindsOf(read(session.transcriptPath!))).toEqual(["prompt", "assistant-tool-use", "tool-result", "assistant-text"]);
  });

  it("goes on when a line cannot be written: the turn completes, and one warning says why", async () => {
    const dir = tempDir();
    const notices: Notification[] = [];
    const agent = createAgent({
      model: createScriptedModel({ turns: [], whenDone: "ok" }),
      stack: createAgentStack(),
      transcript: { dir: join(dir, "t") },
      onNotification: (n) => notices.push(n),
    });
    const session = await agent.session({ sessionId: "s" });
    // The directory becomes a file: every later write fails.
    rmSync(join(dir, "t"), { recursive: true });
    writeFileSync(join(dir, "t"), "");

    const turns = [await session.prompt("one"), await session.prompt("two")];

    expect(turns.map((t) => t.status)).toEqual(["completed", "completed"]);
    expect(notices.filter((n) => n.type === "warning").map((n) => n.message)).toEqual([
      expect.stringMatching(/^the transcript of session s could not be written: /),
    ]);
  });

  it("writes a tool result JSON cannot carry without its raw output, keeping the text the model read", async () => {
    const dir = tempDir();
    const odd = { name: "Odd", execute: () => ({ big: 10n }) };
    const model = createScriptedModel({ turns: [{ toolCalls: [{ name: "Odd", input: {}, id: "o1" }] }, "done"] });
    const session = await createAgent({ model, stack: createAgentStack(), tools: [odd], transcript: { dir } }).session();

    const turn = await session.prompt("go");

    expect(turn.status).toBe("completed");
    const result = read(session.transcriptPath!).find((l) => lineKind(l) === "tool-result")!;
    expect(result).not.toHaveProperty("toolUseResult");
    expect((result.message as { content: { content: string }[] }).content[0]!.content).toBe(model.requests[1]!.messages.at(-1)!.content);
  });

  it("refuses a default directory that is a link, rather than write the conversation where it leads", async () => {
    const dir = tempDir();
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = dir;
    try {
      mkdirSync(join(dir, "elsewhere"));
      symlinkSync(join(dir, "elsewhere"), join(dir, `agent-onion-${process.getuid?.() ?? ""}`));
      const agent = createAgent({ model: createScriptedModel({ turns: [], whenDone: "ok" }), stack: createAgentStack() });

      await expect(agent.session()).rejects.toThrow(
        /refusing to keep transcripts in .*: it is a link; give createAgent\(\{ transcript: \{ dir \} \}\) or transcript: false/,
      );
      expect(readdirSync(join(dir, "elsewhere"))).toEqual([]);
    } finally {
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
    }
  });

  it("says which option is wrong", () => {
    const base = { model: createScriptedModel({ turns: [] }), stack: createAgentStack() };
    expect(() => createAgent({ ...base, transcript: "yes" as never })).toThrow(
      "createAgent: transcript must be true, false or { dir, keep }, got yes",
    );
    expect(() => createAgent({ ...base, transcript: { dir: "" } })).toThrow('createAgent: transcript.dir must be a non-empty path, got ""');
    expect(() => createAgent({ ...base, transcript: { keep: "no" as never } })).toThrow(
      "createAgent: transcript.keep must be a boolean, got no",
    );
  });

  it("leaves a stop refused by a hook in the conversation as Claude Code's meta line", async () => {
    const dir = tempDir();
    let blocked = false;
    const stack = createAgentStack().use("stop", {
      name: "once",
      before: () => (blocked ? Continue : ((blocked = true), Reject("Run the tests first"))),
    });
    const session = await createAgent({ model: createScriptedModel({ turns: ["first", "second"] }), stack, transcript: { dir } }).session();

    await session.prompt("go");

    const meta = read(session.transcriptPath!).find((l) => lineKind(l) === "meta");
    expect(meta).toMatchObject({
      type: "user",
      isMeta: true,
      message: { role: "user", content: "Stop hook feedback:\nRun the tests first" },
    });
  });
});

describe("the transcript as Claude Code plugins read it", () => {
  it("lets hookify's Stop gate read the session's own transcript: the agent goes on until it shows npm test ran", async () => {
    const cwd = tempDir();
    mkdirSync(join(cwd, ".claude"));
    writeFileSync(
      join(cwd, ".claude", "hookify.require-tests.local.md"),
      "---\nname: require-tests\nenabled: true\nevent: stop\nfield: transcript\npattern: ^(?![\\s\\S]*npm test)\naction: block\n---\nRun npm test before stopping.\n",
    );
    const { stack } = fromClaudePlugin(join(fixtures, "..", "plugins", "hookify"), { cwd, onNotice: () => {} });
    const ran: string[] = [];
    const model = createScriptedModel({
      turns: [
        "Fixed it.",
        { toolCalls: [{ name: "Bash", input: { command: "npm test" }, id: "t1" }] },
        "Fixed it; the tests pass.",
        "never asked",
      ],
    });
    const session = await createAgent({ model, stack, tools: [bashTool(ran)], transcript: { dir: join(cwd, "transcripts") } }).session({
      metadata: { cwd },
    });

    const turn = await session.prompt("fix the bug");

    expect(turn).toMatchObject({ status: "completed", text: "Fixed it; the tests pass." });
    expect(ran).toEqual(["npm test"]);
    expect(JSON.stringify(model.requests[1]?.messages)).toContain("Run npm test before stopping.");
    expect(model.requests).toHaveLength(3);
    await session.close();
  });
});
