/**
 * Reading the person's answers to the AI SDK's tool approval from the messages the SDK passes to a
 * tool and from a provider prompt: which calls are denied, with what reason, and which answers are
 * this call's own (fresh) rather than further back in the conversation.
 */
import { describe, expect, it } from "vitest";
import { askedCalls, deniedIn, inputDigest, type SdkDenial } from "../../../src/adapters/ai-sdk/approvals.ts";

const asked = (toolCallId: string, approvalId: string, command: string) => ({
  role: "assistant",
  content: [
    { type: "tool-call", toolCallId, toolName: "bash", input: { command } },
    { type: "tool-approval-request", approvalId, toolCallId },
  ],
});
const answer = (approvalId: string, approved: boolean, reason?: string) => ({
  role: "tool",
  content: [{ type: "tool-approval-response", approvalId, approved, ...(reason !== undefined ? { reason } : {}) }],
});

describe("deniedIn", () => {
  it("names each denied call with its tool, input and reason, and tells this call's answers from earlier ones", () => {
    const messages = [
      { role: "user", content: "go" },
      asked("c1", "a1", "git push"),
      answer("a1", false, "frozen"),
      asked("c2", "a2", "deploy"),
      asked("c3", "a3", "rm -rf /tmp/x"),
      { role: "tool", content: [answer("a2", true).content[0], answer("a3", false).content[0]] },
    ];
    expect(deniedIn(messages)).toEqual([
      {
        toolCallId: "c1",
        fresh: false,
        toolName: "bash",
        input: { command: "git push" },
        answer: { decision: "deny", by: "ai-sdk tool approval", reason: "frozen" },
      },
      {
        toolCallId: "c3",
        fresh: true,
        toolName: "bash",
        input: { command: "rm -rf /tmp/x" },
        answer: { decision: "deny", by: "ai-sdk tool approval", reason: "denied through the AI SDK's tool approval" },
      },
    ]);
  });

  it("reads an answer that is not approved: true as a denial, and ignores one whose request is not in the messages", () => {
    const malformed = { role: "tool", content: [{ type: "tool-approval-response", approvalId: "a1", approved: "yes" }] };
    expect(deniedIn([asked("c1", "a1", "ls"), malformed]).map((d) => d.toolCallId)).toEqual(["c1"]);
    expect(deniedIn([answer("a9", false, "no")])).toEqual([]);
    expect(deniedIn(undefined)).toEqual([]);
  });
});

describe("AskedCalls.answerFromPrompt", () => {
  const prompt = (trailing: boolean) => [
    { role: "user", content: [{ type: "text", text: "go" }] },
    { role: "assistant", content: [{ type: "tool-call", toolCallId: "c1", toolName: "bash", input: { command: "git push" } }] },
    {
      role: "tool",
      content: [{ type: "tool-result", toolCallId: "c1", toolName: "bash", output: { type: "execution-denied", reason: "frozen" } }],
    },
    ...(trailing ? [] : [{ role: "assistant", content: [{ type: "text", text: "ok" }] }]),
  ];

  it("settles a waiting question from any denied result, and gives readers only the denials of this call, once each", async () => {
    const asked = askedCalls({});
    const read: SdkDenial[] = [];
    const reader = (denials: readonly SdkDenial[]) => {
      for (const d of denials) if (asked.take(d.toolCallId)) read.push(d);
      return undefined;
    };
    asked.read(reader);
    expect(asked.answerFromPrompt(prompt(false), noSession)).toBeUndefined();
    expect(read).toEqual([]);
    await asked.answerFromPrompt(prompt(true), noSession);
    await asked.answerFromPrompt(prompt(true), noSession);
    expect(read.map((d) => [d.toolCallId, d.toolName, d.input, d.answer.reason])).toEqual([
      ["c1", "bash", { command: "git push" }, "frozen"],
    ]);

    const answers: unknown[] = [];
    const waiting = askedCalls({});
    waiting.add("c1", {
      name: "bash",
      digest: inputDigest({ command: "git push" }),
      session: undefined,
      evict: () => {},
      answer: (a) => answers.push(a),
    });
    waiting.answerFromPrompt(prompt(false), noSession);
    expect(answers).toEqual([{ decision: "deny", by: "ai-sdk tool approval", reason: "frozen" }]);
    expect(waiting.take("c1")).toBe(false);
  });
});

/** The conversation of a run given no session. */
const noSession = (): undefined => undefined;

describe("AskedCalls.answerFrom", () => {
  /** A question about bash `git push` waiting under c1, and the answers it got. */
  const waiting = () => {
    const answers: unknown[] = [];
    const asked = askedCalls({});
    asked.add("c1", {
      name: "bash",
      digest: inputDigest({ command: "git push" }),
      session: undefined,
      evict: () => {},
      answer: (a) => answers.push(a),
    });
    return { asked, answers };
  };
  const call = (toolName: string, input: unknown) => ({
    role: "assistant",
    content: [
      { type: "tool-call", toolCallId: "c1", toolName, input },
      { type: "tool-approval-request", approvalId: "a1", toolCallId: "c1" },
    ],
  });

  it("settles the question with an approval of exactly the tool and input it asked about, whatever the key order", () => {
    const { asked, answers } = waiting();
    asked.answerFrom([call("bash", { command: "git push" }), answer("a1", true, "go")], noSession);
    expect(answers).toEqual([{ decision: "approve", by: "ai-sdk tool approval", reason: "go" }]);
    expect(asked.size).toBe(0);
  });

  it.each([
    ["another tool", call("deploy", { command: "git push" }), /for the tool "deploy", the question was about "bash"/],
    ["an edited input", call("bash", { command: "git push --force" }), /input differs/],
    ["an added field", call("bash", { command: "git push", force: true }), /input differs/],
    ["no call at all", { role: "assistant", content: [{ type: "tool-approval-request", approvalId: "a1", toolCallId: "c1" }] }, /no call/],
  ])("denies the question when the approval is of %s, saying why", (_, message, why) => {
    const { asked, answers } = waiting();
    asked.answerFrom([message, answer("a1", true, "go")], noSession);
    expect(answers).toEqual([{ decision: "deny", by: "ai-sdk tool approval", reason: expect.stringMatching(why) }]);
  });

  it("leaves the question waiting when the messages do not answer it", () => {
    const { asked, answers } = waiting();
    asked.answerFrom([call("bash", { command: "git push" })], noSession);
    expect(answers).toEqual([]);
    expect(asked.size).toBe(1);
  });
});
