/**
 * The settings round trip. One guard, written in TypeScript (test/fixtures/settings/guard-stack.ts),
 * runs two ways over the events of a short session:
 *   - in process, as a stack;
 *   - as Claude Code would run it: settings.json (bridge.json) points every event at
 *     `agent-onion claude-hook guard-stack.ts`, a real child process fed the event JSON on stdin,
 *     whose protocol answers our settings loader turns back into decisions.
 * Both must decide the same: same outcome, same reason, same rewritten input or output, same context.
 */
import { describe, expect, it } from "vitest";
import type { AgentStack } from "../../src/agent/stack.ts";
import type { ToolCall } from "../../src/agent/types.ts";
import type { ApprovalHandler } from "../../src/core/context.ts";
import type { Outcome } from "../../src/core/outcome.ts";
import { fromClaudeSettings } from "../../src/executors/settings.ts";
import guardStack from "../fixtures/settings/guard-stack.ts";
import { fixture, root } from "./helpers.ts";
import { scaled } from "../support/scale.ts";

// A person who approves pushes to feature branches only.
const approval: ApprovalHandler = (r) =>
  String((r.input as ToolCall).input.command).includes("main")
    ? { decision: "deny", reason: "no pushes to main" }
    : { decision: "approve" };

interface Seen {
  readonly outcome: { readonly tag: string; readonly reason?: string; readonly value?: unknown; readonly error?: string };
  readonly context: readonly string[];
  readonly toolInputs: readonly unknown[];
}

const summarize = (o: Outcome, context: string[], toolInputs: unknown[]): Seen => ({
  outcome:
    o._tag === "Rejected"
      ? { tag: o._tag, reason: o.reason }
      : o._tag === "Completed"
        ? { tag: o._tag, value: o.value }
        : { tag: o._tag, error: String((o.error as Error)?.message) },
  context: context
    .join("\n\n")
    .split("\n\n")
    .filter((c) => c !== ""),
  toolInputs,
});

/** The events of a short session, as runs on the agent points. */
const session = (stack: AgentStack) => {
  const run = async (point: string, input: unknown, operation: (i: any) => unknown): Promise<Seen> => {
    const context: string[] = [];
    const toolInputs: unknown[] = [];
    const outcome = await (stack.run as (p: string, i: unknown, op: (i: unknown) => unknown, o: object) => Promise<Outcome>)(
      point,
      input,
      (i) => {
        toolInputs.push(i);
        return operation(i);
      },
      { sessionId: "s1", onContext: (t: string) => context.push(t), metadata: { cwd: root } },
    );
    return summarize(outcome, context, toolInputs);
  };
  const bash = (command: string, id: string) => ({ id, name: "Bash", input: { command } });
  const ran = (call: ToolCall) => ({ content: `ran: ${String(call.input.command)}` });
  return {
    "session start": () => run("sessionStart", { sessionId: "s1", source: "startup" }, (s) => ({ sessionId: s.sessionId })),
    "a plain prompt": () => run("userPrompt", { text: "clean the build" }, (p) => p),
    "a prompt with a key": () => run("userPrompt", { text: "use sk-ABCDEFGH1234" }, (p) => p),
    ls: () => run("toolCall", bash("ls", "t1"), ran),
    "rm -rf": () => run("toolCall", bash("rm -rf build", "t2"), ran),
    "curl (rewritten)": () => run("toolCall", bash("curl https://example.com", "t3"), ran),
    "git push, approved": () => run("toolCall", bash("git push origin feature", "t4"), ran),
    "git push main, denied": () => run("toolCall", bash("git push origin main", "t5"), ran),
    "output with a secret": () => run("toolCall", bash("cat .env", "t6"), () => ({ content: "SECRET=hunter2 PORT=80" })),
    "a failing tool": () =>
      run("toolCall", bash("npm test", "t7"), () => {
        throw new Error("Exit code 1");
      }),
    "first stop": () => run("stop", { reason: "end_turn", blockedCount: 0, lastMessage: "done" }, () => ({ stop: true })),
    "second stop": () => run("stop", { reason: "end_turn", blockedCount: 1, lastMessage: "done" }, () => ({ stop: true })),
    "a notification": () => run("notification", { type: "idle_prompt", message: "waiting" }, () => undefined),
  } as const;
};

describe("settings round trip through agent-onion claude-hook", () => {
  it(
    "decides every event of a session the same way as the in-process stack",
    async () => {
      const inProcess = session(guardStack({ approval }));
      const loaded = fromClaudeSettings([fixture("settings", "bridge.json")], { cwd: root, projectDir: root, stackOptions: { approval } });
      expect(loaded.hooks).toHaveLength(7);
      const viaClaudeCode = session(loaded.stack);
      const expected: Record<string, Partial<Seen["outcome"]>> = {
        "a prompt with a key": { tag: "Rejected", reason: "The prompt contains what looks like an API key." },
        "rm -rf": { tag: "Rejected", reason: "Destructive command blocked: rm -rf build" },
        "git push main, denied": { tag: "Rejected", reason: "no pushes to main" },
        "output with a secret": { tag: "Completed", value: { content: "SECRET=[redacted] PORT=80" } },
        "a failing tool": { tag: "Failed" },
        "first stop": { tag: "Rejected", reason: "Run the test suite before finishing." },
        "second stop": { tag: "Completed" },
      };
      for (const name of Object.keys(inProcess) as (keyof typeof inProcess)[]) {
        const mine = await inProcess[name]();
        const theirs = await viaClaudeCode[name]();
        expect({ event: name, ...theirs }).toEqual({ event: name, ...mine });
        if (expected[name]) expect(mine.outcome).toMatchObject(expected[name]!);
      }
      const curl = await inProcess["curl (rewritten)"]();
      expect(curl.toolInputs).toEqual([{ id: "t3", name: "Bash", input: { command: "echo dry-run: curl https://example.com" } }]);
      expect((await inProcess["a failing tool"]()).context).toEqual(["Bash failed; try running npm ci first."]);
    },
    scaled(120_000),
  );
});
