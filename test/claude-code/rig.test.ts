/**
 * The rig itself: the mock Messages API speaks the protocol (streamed and not), the debug log
 * reads back, and a real Claude Code run goes through the namespace, runs a Bash command for
 * real, reaches nothing but the mock, and sends the model the command's result.
 */
import { describe, expect, it } from "vitest";
import { hookRuns } from "../support/claude-code/debug-log.ts";
import { startMockAnthropic, type MockTurn } from "../support/claude-code/mock-anthropic.ts";
import { toolExchanges } from "../support/claude-code/model-view.ts";
import { bashTurn, ranCommand, runClaudeCode } from "../support/claude-code/run-claude-code.ts";
import { describeClaudeCode } from "../support/claude-code/suite.ts";

const ask = (url: string, body: object) =>
  fetch(`${url}/v1/messages`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

const request = (stream: boolean) => ({
  model: "claude-test",
  stream,
  max_tokens: 100,
  tools: [{ name: "Bash" }],
  messages: [{ role: "user", content: "hi" }],
});

/** The events of a server-sent event stream, in order. */
const events = (text: string) =>
  text
    .trim()
    .split("\n\n")
    .map((chunk) => {
      const [event, data] = chunk.split("\n");
      return { event: event!.replace("event: ", ""), data: JSON.parse(data!.replace("data: ", "")) as Record<string, unknown> };
    });

describe("the mock Messages API", () => {
  const withMock = async (
    turns: readonly MockTurn[],
    test: (url: string, mock: Awaited<ReturnType<typeof startMockAnthropic>>) => Promise<void>,
    whenDone?: MockTurn,
  ) => {
    const mock = await startMockAnthropic({ turns, ...(whenDone !== undefined ? { whenDone } : {}) }, 0);
    try {
      await test(mock.url!, mock);
    } finally {
      await mock.close();
    }
  };

  it("streams a tool call as the API does: message_start, a tool_use block with its JSON, message_delta with tool_use, message_stop", async () => {
    await withMock([bashTurn("ls", "toolu_1")], async (url) => {
      const response = await ask(url, request(true));
      expect(response.headers.get("content-type")).toBe("text/event-stream");
      const got = events(await response.text());
      expect(got.map((e) => e.event)).toEqual([
        "message_start",
        "ping",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
      ]);
      expect(got[2]!.data).toMatchObject({ content_block: { type: "tool_use", id: "toolu_1", name: "Bash", input: {} } });
      expect(JSON.parse((got[3]!.data.delta as { partial_json: string }).partial_json)).toEqual({
        command: "ls",
        description: "rig command",
      });
      expect(got[5]!.data).toMatchObject({ delta: { stop_reason: "tool_use" } });
    });
  });

  it("streams text in deltas that join to the scripted text, ending the turn", async () => {
    await withMock(["All done here."], async (url) => {
      const got = events(await (await ask(url, request(true))).text());
      const text = got
        .filter((e) => e.event === "content_block_delta")
        .map((e) => (e.data.delta as { text: string }).text)
        .join("");
      expect(text).toBe("All done here.");
      expect(got.find((e) => e.event === "message_delta")!.data).toMatchObject({ delta: { stop_reason: "end_turn" } });
    });
  });

  it("answers a non-streaming request with one message body", async () => {
    await withMock([bashTurn("ls", "toolu_9")], async (url) => {
      const body = (await (await ask(url, request(false))).json()) as Record<string, unknown>;
      expect(body).toMatchObject({
        type: "message",
        role: "assistant",
        stop_reason: "tool_use",
        content: [{ type: "tool_use", id: "toolu_9", name: "Bash", input: { command: "ls" } }],
      });
    });
  });

  it("records every request, answers side queries without using a turn, and repeats whenDone after the script", async () => {
    await withMock(
      ["first"],
      async (url, mock) => {
        await ask(url, { ...request(false), tools: [] });
        const one = (await (await ask(url, request(false))).json()) as { content: { text: string }[] };
        const two = (await (await ask(url, request(false))).json()) as { content: { text: string }[] };
        expect([one.content[0]!.text, two.content[0]!.text]).toEqual(["first", "again"]);
        expect(mock.requests).toHaveLength(3);
        expect(mock.scripted()).toHaveLength(2);
        expect((await fetch(`${url}/v1/models`)).status).toBe(404);
      },
      "again",
    );
  });

  it("answers an API error when the turn says so", async () => {
    await withMock([{ error: { status: 529, type: "overloaded_error", message: "busy" } }], async (url) => {
      const response = await ask(url, request(true));
      expect(response.status).toBe(529);
      expect(await response.json()).toEqual({ type: "error", error: { type: "overloaded_error", message: "busy" } });
    });
  });
});

describe("reading what the model was sent", () => {
  it("pairs each tool call with its result and the hook context that followed it", () => {
    const exchanges = toolExchanges({
      messages: [
        { role: "user", content: "go" },
        { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "Bash", input: { command: "ls" } }] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "a.txt", is_error: false }] },
        { role: "system", content: [{ type: "text", text: "PostToolUse:Bash hook additional context: note" }] },
      ],
    });
    expect(exchanges).toEqual([
      {
        id: "t1",
        name: "Bash",
        input: { command: "ls" },
        text: "a.txt",
        isError: false,
        alongside: ["PostToolUse:Bash hook additional context: note"],
      },
    ]);
  });

  it("reads finished and timed-out hooks from the debug log", () => {
    const log = [
      "2026-01-01T00:00:00.000Z [DEBUG] Hooks: PreToolUse:Bash [sleep 5] timed out after 1000ms (1030ms)",
      "2026-01-01T00:00:01.000Z [DEBUG] Hooks: Stop [./stop.sh] finished with status 2 (9ms)",
      "2026-01-01T00:00:01.000Z [DEBUG] Hook output does not start with {, treating as plain text",
    ].join("\n");
    expect(hookRuns(log)).toEqual([
      {
        label: "PreToolUse:Bash",
        event: "PreToolUse",
        command: "sleep 5",
        status: "timeout",
        timeoutMs: 1000,
        ms: 1030,
        at: Date.parse("2026-01-01T00:00:00.000Z"),
      },
      { label: "Stop", event: "Stop", command: "./stop.sh", status: 2, ms: 9, at: Date.parse("2026-01-01T00:00:01.000Z") },
    ]);
  });
});

describeClaudeCode("a real Claude Code run in the rig", () => {
  it("runs the scripted Bash command for real, sends its result to the model, and calls nothing but streamed POST /v1/messages", async () => {
    const run = await runClaudeCode({ turns: [bashTurn(ranCommand("1")), "Done."] });
    expect(run.exitCode).toBe(0);
    expect(run.executed).toEqual(["1"]);
    expect(run.toolResults).toMatchObject([{ name: "Bash", text: "(Bash completed with no output)", isError: false }]);
    expect(run.finalText).toBe("Done.");
    expect(run.requests.map((r) => `${r.method} ${r.path} ${r.body?.stream}`)).toEqual([
      "POST /v1/messages true",
      "POST /v1/messages true",
    ]);
    expect(run.requests[0]!.headers["x-api-key"]).toBe("sk-ant-api03-offline-rig-key");
  });

  it("has no network but loopback: a connection to a public address fails inside the namespace", async () => {
    const probe = "(exec 3<>/dev/tcp/1.1.1.1/53) 2>/dev/null && touch ran-online || touch ran-offline";
    const run = await runClaudeCode({ turns: [bashTurn(probe), "Done."] });
    expect(run.executed).toEqual(["offline"]);
  });
});
