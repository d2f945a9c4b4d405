/**
 * A labelled corpus of approver answers, each run through a real stack: guards outside the
 * approval hook (a deny policy, a condition hook, a function guard), the approval middleware,
 * and the tool. Only a well-formed approve or edit lets the call run; everything else is a denial
 * whose reason says why. Edits keep the tool and the input's shape, and every guard outside the
 * approval hook checks the edited call again before the tool runs.
 */
import { describe, expect, it } from "vitest";
import { createAgentStack, type ToolCall } from "../../src/agent/index.ts";
import { Continue, Reject, type ApprovalAnswer, type ApprovalRequest } from "../../src/core/index.ts";
import { Priority } from "../../src/core/priority.ts";
import { withMiddleware } from "../../src/middleware/apply.ts";
import { approval } from "../../src/middleware/approval.ts";
import { toolPolicy } from "../../src/middleware/tool-policy.ts";

/** An answer, made from the request (edits start from what was asked). */
type Answer = (request: ApprovalRequest) => unknown;
/** `runs`: the command the tool ran; else the call was denied, with a reason matching `reason`. */
type Label = { readonly runs: string } | { readonly denied: RegExp };
interface Case {
  readonly name: string;
  readonly answer: Answer;
  readonly label: Label;
}

const asked = (r: ApprovalRequest) => r.input as ToolCall;
const edit =
  (input: (call: ToolCall) => unknown): Answer =>
  (r) => ({ decision: "edit", input: input(asked(r)) });
const withCommand = (command: unknown) => edit((c) => ({ ...c, input: { ...c.input, command } }));
const malformed = /the approver's answer is not an approval/;

const revoked = () => {
  const { proxy, revoke } = Proxy.revocable({ decision: "approve" }, {});
  revoke();
  return proxy;
};
const cyclic = () => {
  const input: Record<string, unknown> = { command: "ls" };
  input.self = input;
  return input;
};
/** An input whose `command` reads as `first` the first time and as `then` after. */
const changing = (input: Record<string, unknown>, first: string, then: string) => {
  let reads = 0;
  const out = { ...input };
  Object.defineProperty(out, "command", { enumerable: true, get: () => (reads++ === 0 ? first : then) });
  return out;
};
/** The same, as a Proxy over a plain object (its prototype and keys are the object's). */
const changingProxy = (input: Record<string, unknown>, first: string, then: string) => {
  let reads = 0;
  return new Proxy(
    { ...input, command: first },
    { get: (t, key) => (key === "command" ? (reads++ === 0 ? first : then) : Reflect.get(t, key)) },
  );
};
/** A call whose `name` reads as it is the first time and as `then` after. */
const renamingProxy = (call: Record<string, unknown>, then: string) => {
  let reads = 0;
  return new Proxy(call, { get: (t, key) => (key === "name" && reads++ > 0 ? then : Reflect.get(t, key)) });
};
const nested = (depth: number): unknown => (depth === 0 ? "ls" : { deeper: nested(depth - 1) });

const corpus: readonly Case[] = [
  // Well-formed approvals run the call.
  { name: "approve", answer: () => ({ decision: "approve" }), label: { runs: "ls" } },
  {
    name: "approve with a reason and who decided",
    answer: () => ({ decision: "approve", reason: "looks fine", by: "alice" }),
    label: { runs: "ls" },
  },
  { name: "approve, promised", answer: async () => ({ decision: "approve" }), label: { runs: "ls" } },
  {
    name: "approve, from a thenable",
    answer: () => ({ then: (ok: (v: unknown) => void) => ok({ decision: "approve" }) }),
    label: { runs: "ls" },
  },
  {
    name: "approve, with an object of no prototype",
    answer: () => Object.assign(Object.create(null), { decision: "approve" }),
    label: { runs: "ls" },
  },
  { name: "approve, with a field left undefined", answer: () => ({ decision: "approve", reason: undefined }), label: { runs: "ls" } },
  {
    name: "approve, through a getter read once",
    answer: () => ({
      get decision() {
        return "approve";
      },
    }),
    label: { runs: "ls" },
  },
  {
    name: "approve, through a Proxy (read once)",
    answer: () =>
      new Proxy(
        {},
        {
          get: (_t, k) => (k === "decision" ? "approve" : undefined),
          ownKeys: () => ["decision"],
          getOwnPropertyDescriptor: () => ({ enumerable: true, configurable: true, value: "approve" }),
        },
      ),
    label: { runs: "ls" },
  },
  // Booleans, strings, numbers, nothing.
  { name: "true", answer: () => true, label: { denied: malformed } },
  { name: "false", answer: () => false, label: { denied: malformed } },
  { name: '"approve"', answer: () => "approve", label: { denied: malformed } },
  { name: '"yes"', answer: () => "yes", label: { denied: malformed } },
  { name: '"deny"', answer: () => "deny", label: { denied: malformed } },
  { name: "an empty string", answer: () => "", label: { denied: malformed } },
  { name: "1", answer: () => 1, label: { denied: malformed } },
  { name: "NaN", answer: () => Number.NaN, label: { denied: malformed } },
  { name: "null", answer: () => null, label: { denied: malformed } },
  { name: "undefined", answer: () => undefined, label: { denied: malformed } },
  { name: "a promise of undefined", answer: async () => undefined, label: { denied: malformed } },
  { name: "an array", answer: () => ["approve"], label: { denied: malformed } },
  { name: "a function", answer: () => () => ({ decision: "approve" }), label: { denied: malformed } },
  { name: "a symbol", answer: () => Symbol("approve"), label: { denied: malformed } },
  // Objects with the wrong tag or shape.
  { name: "{}", answer: () => ({}), label: { denied: /decision is missing/ } },
  {
    name: '{ decision: "reject" }',
    answer: () => ({ decision: "reject" }),
    label: { denied: /decision: expected "approve" \| "deny" \| "edit", got "reject"/ },
  },
  { name: '{ decision: "allow" }', answer: () => ({ decision: "allow" }), label: { denied: malformed } },
  { name: '{ decision: "Approve" }', answer: () => ({ decision: "Approve" }), label: { denied: malformed } },
  { name: '{ decision: "approve " }', answer: () => ({ decision: "approve " }), label: { denied: malformed } },
  { name: "{ decision: true }", answer: () => ({ decision: true }), label: { denied: malformed } },
  { name: '{ decision: ["approve"] }', answer: () => ({ decision: ["approve"] }), label: { denied: malformed } },
  { name: "{ approved: true }", answer: () => ({ approved: true }), label: { denied: malformed } },
  { name: "{ _tag: Continue }", answer: () => ({ _tag: "Continue" }), label: { denied: malformed } },
  {
    name: "approve with an unknown field",
    answer: () => ({ decision: "approve", input: { command: "rm -rf /" } }),
    label: { denied: /input is unexpected/ },
  },
  {
    name: "approve with a reason that is not text",
    answer: () => ({ decision: "approve", reason: 5 }),
    label: { denied: /reason: expected string, got 5/ },
  },
  {
    name: "an instance of a class",
    answer: () =>
      new (class Answer {
        decision = "approve";
      })(),
    label: { denied: /a Answer is not plain data/ },
  },
  { name: "a Date", answer: () => new Date(), label: { denied: /a Date is not plain data/ } },
  // Denials keep their reason, or get one.
  {
    name: "deny with a reason",
    answer: () => ({ decision: "deny", reason: "not on a Friday" }),
    label: { denied: /^Bash was not approved: not on a Friday$/ },
  },
  { name: "deny without a reason", answer: () => ({ decision: "deny" }), label: { denied: /denied by the approver/ } },
  { name: "deny with a blank reason", answer: () => ({ decision: "deny", reason: "  " }), label: { denied: /denied by the approver/ } },
  // Getters, Proxies and approvers that throw.
  {
    name: "a getter that throws",
    answer: () => ({
      get decision(): string {
        throw new Error("boom");
      },
    }),
    label: { denied: /reading it threw: .*boom/ },
  },
  // Awaiting the answer reads its `then` through the trap: the approver's promise fails.
  {
    name: "a Proxy whose get trap throws",
    answer: () =>
      new Proxy(
        { decision: "approve" },
        {
          get: () => {
            throw new Error("trap");
          },
        },
      ),
    label: { denied: /the approver failed: .*trap/ },
  },
  {
    name: "a Proxy whose ownKeys trap throws",
    answer: () =>
      new Proxy(
        { decision: "approve" },
        {
          ownKeys: () => {
            throw new Error("keys");
          },
        },
      ),
    label: { denied: /reading it threw: .*keys/ },
  },
  { name: "a revoked Proxy", answer: revoked, label: { denied: /the approver failed: .*revoked/ } },
  {
    name: "a Proxy whose getOwnPropertyDescriptor trap throws",
    answer: () =>
      new Proxy(
        { decision: "approve" },
        {
          getOwnPropertyDescriptor: () => {
            throw new Error("descriptor");
          },
        },
      ),
    label: { denied: /reading it threw: .*descriptor/ },
  },
  {
    name: "a Proxy that answers approve once, then deny (read once: approve)",
    answer: () => {
      let n = 0;
      return new Proxy(
        { decision: "approve" },
        { get: (t, k) => (k === "decision" ? (n++ === 0 ? "approve" : "deny") : Reflect.get(t, k)) },
      );
    },
    label: { runs: "ls" },
  },
  {
    name: "an approver that throws",
    answer: () => {
      throw new Error("UI crashed");
    },
    label: { denied: /the approver failed: .*UI crashed/ },
  },
  {
    name: "an approver whose promise rejects",
    answer: async () => {
      throw new Error("lost connection");
    },
    label: { denied: /the approver failed: .*lost connection/ },
  },
  // Edits: well-formed ones run, after every guard checked the edited call.
  { name: "edit the command", answer: withCommand("ls -la"), label: { runs: "ls -la" } },
  { name: "edit, adding an argument", answer: edit((c) => ({ ...c, input: { ...c.input, timeout: 5 } })), label: { runs: "ls" } },
  {
    name: "edit, changing the call's id (kept)",
    answer: edit((c) => ({ ...c, id: "other", input: { command: "pwd" } })),
    label: { runs: "pwd" },
  },
  // Edits that change the tool or the input's shape are refused.
  {
    name: "edit that renames the tool",
    answer: edit((c) => ({ ...c, name: "Write" })),
    label: { denied: /edit was refused: the edit changes what guards matched on \("Bash" to "Write"\)/ },
  },
  {
    name: "edit that renames the tool to a lookalike",
    answer: edit((c) => ({ ...c, name: "bash" })),
    label: { denied: /edit was refused: .*"Bash" to "bash"/ },
  },
  {
    name: "edit that turns the input object into a string",
    answer: edit((c) => ({ ...c, input: "rm -rf /" })),
    label: { denied: /edit was refused: input: the edit turns an object into a string/ },
  },
  {
    name: "edit that turns the input object into an array",
    answer: edit((c) => ({ ...c, input: ["rm", "-rf", "/"] })),
    label: { denied: /input: the edit turns an object into an array/ },
  },
  {
    name: "edit that turns the command into a number",
    answer: withCommand(42),
    label: { denied: /input.command: the edit turns a string into a number/ },
  },
  {
    name: "edit to a string",
    answer: () => ({ decision: "edit", input: "rm -rf /" }),
    label: { denied: /the edit turns an object into a string/ },
  },
  {
    name: "edit that adds a field to the call",
    answer: edit((c) => ({ ...c, providerExecuted: true })),
    label: { denied: /the edit adds the field "providerExecuted"/ },
  },
  {
    name: "edit whose input holds a __proto__ key",
    answer: () => ({ decision: "edit", input: JSON.parse('{"id":"c1","name":"Bash","input":{"__proto__":{"command":"rm -rf /"}}}') }),
    label: { denied: /input.input.__proto__: a __proto__ key is not plain data/ },
  },
  {
    name: "approve with a __proto__ key",
    answer: () => JSON.parse('{"decision":"approve","__proto__":{"decision":"deny"}}'),
    label: { denied: /__proto__: a __proto__ key is not plain data/ },
  },
  {
    name: "edit that swaps the command for a cmd the guards read too",
    answer: edit((c) => ({ ...c, input: { cmd: "rm -rf /tmp/x" } })),
    label: { denied: /Bash\(rm \*\)/ },
  },
  { name: "edit to null", answer: () => ({ decision: "edit", input: null }), label: { denied: /the edit turns an object into null/ } },
  { name: "edit without an input", answer: () => ({ decision: "edit" }), label: { denied: /input is missing/ } },
  {
    name: "edit that drops the input",
    answer: edit((c) => ({ id: c.id, name: c.name })),
    label: { denied: /the edit drops the field "input"/ },
  },
  {
    name: "edit that drops the tool's name",
    answer: edit((c) => ({ id: c.id, input: c.input })),
    label: { denied: /drops the field "name"/ },
  },
  { name: "edit holding a Date", answer: withCommand(new Date(0)), label: { denied: /input.input.command: a Date is not plain data/ } },
  { name: "edit holding a cycle", answer: () => ({ decision: "edit", input: cyclic() }), label: { denied: /refers to itself/ } },
  {
    name: "edit nested 100 levels deep",
    answer: edit((c) => ({ ...c, input: { command: "ls", extra: nested(100) } })),
    label: { denied: /nested more than 64 levels/ },
  },
  {
    name: "edit with a getter that throws",
    answer: edit((c) => ({
      ...c,
      input: {
        get command(): string {
          throw new Error("gotcha");
        },
      },
    })),
    label: { denied: /reading it threw: .*gotcha/ },
  },
  // An edit is copied into plain data once, before any guard reads it: what the guards check is
  // what the tool gets, whatever the approver's object does when it is read again or serialised.
  {
    name: "edit whose input has a toJSON method",
    answer: edit((c) => ({ ...c, input: { command: "rm -rf /tmp/x", toJSON: () => ({ command: "ls" }) } })),
    label: { denied: /input.input.toJSON: a function is not plain data/ },
  },
  {
    name: "edit whose call has a toJSON method showing another call",
    answer: edit((c) => ({ ...c, input: { command: "ls -la" }, toJSON: () => ({ ...c, input: { command: "ls" } }) })),
    label: { denied: /input.toJSON: a function is not plain data/ },
  },
  {
    name: "edit with a getter that answers a harmless command once, then another",
    answer: edit((c) => ({ ...c, input: changing(c.input, "ls -la", "rm -rf /tmp/x") })),
    label: { runs: "ls -la" },
  },
  {
    name: "edit as a Proxy that answers a harmless command once, then another",
    answer: edit((c) => ({ ...c, input: changingProxy(c.input, "ls -la", "rm -rf /tmp/x") })),
    label: { runs: "ls -la" },
  },
  {
    name: "edit as a Proxy whose tool name changes after the first read",
    answer: edit((c) => renamingProxy({ ...c, input: { command: "ls -la" } }, "Write")),
    label: { runs: "ls -la" },
  },
  // Edits that a guard outside the approval hook blocks: each guard is asked about the edit.
  {
    name: "edit into a command the deny policy blocks",
    answer: withCommand("rm -rf /tmp/x"),
    label: { denied: /matches deny rule "Bash\(rm \*\)"/ },
  },
  {
    name: "edit into a command a condition hook blocks (its matcher did not apply before)",
    answer: withCommand("curl https://evil.example"),
    label: { denied: /^no network$/ },
  },
  { name: "edit into a command a function guard blocks", answer: withCommand("sudo ls"), label: { denied: /^no sudo$/ } },
];

/** The stack: guards outside the approval hook, then the approval hook, with `answer` as the approver. */
const stackFor = (answer: Answer, seen: string[]) =>
  withMiddleware(
    createAgentStack({ approval: (r) => answer(r) as never }),
    toolPolicy({ deny: ["Bash(rm *)"] }),
    approval({ match: "Bash", timeoutMs: 2_000 }),
  )
    .use("toolCall", { name: "no-curl", priority: Priority.guard, match: "Bash(curl *)", before: () => Reject("no network") })
    .use("toolCall", {
      name: "no-sudo",
      priority: Priority.guard + 1,
      before: (c) => (seen.push(String(c.input.command)), String(c.input.command).startsWith("sudo") ? Reject("no sudo") : Continue),
    });

describe("an approver's answers, through a real stack", () => {
  it.each(corpus.map((c) => [c.name, c] as const))("%s", async (_name, c) => {
    const ran: ToolCall[] = [];
    const seen: string[] = [];
    const call: ToolCall = { id: "c1", name: "Bash", input: { command: "ls" } };
    const outcome = await stackFor(c.answer, seen).run("toolCall", call, (x) => (ran.push(x as ToolCall), { content: "ok" }));
    if ("runs" in c.label) {
      expect(outcome, JSON.stringify(outcome)).toEqual({ _tag: "Completed", value: { content: "ok" } });
      expect(ran.map((x) => x.input.command)).toEqual([c.label.runs]);
      expect(ran[0]?.id).toBe("c1");
      expect(ran[0]?.name).toBe("Bash");
      // The function guard outside the approval hook saw the original, and then any edit, again.
      expect(seen).toEqual(c.name.startsWith("edit") ? ["ls", c.label.runs] : ["ls"]);
    } else {
      expect(ran).toEqual([]);
      expect(outcome._tag).toBe("Rejected");
      expect(outcome._tag === "Rejected" && outcome.reason).toMatch(c.label.denied);
    }
  });

  it("covers every kind of answer the labels name", () => {
    expect(corpus.length).toBeGreaterThanOrEqual(60);
    expect(corpus.filter((c) => "runs" in c.label).length).toBeGreaterThanOrEqual(10);
  });
});

describe("slow approvers: the approver's signal aborts when the hook gives up", () => {
  const call: ToolCall = { id: "c1", name: "Bash", input: { command: "ls" } };
  /** A stack whose one hook asks, and an approver that records its signal and never answers. */
  const asking = (hook: { timeoutMs?: number; signal?: AbortSignal }) => {
    const signals: AbortSignal[] = [];
    const stack = createAgentStack({ approval: (r) => (signals.push(r.signal), new Promise(() => {})) }).use("toolCall", {
      name: "asks",
      ...(hook.timeoutMs !== undefined ? { timeoutMs: hook.timeoutMs } : {}),
      before: async (_c, ctx) => {
        const d = await ctx.approve({ hook: "asks", ...(hook.signal !== undefined ? { signal: hook.signal } : {}) });
        return d.decision === "approve" ? Continue : Reject(d.decision === "deny" ? d.reason : "edited");
      },
    });
    return { stack, signals };
  };

  it("at the hook's own timeout", async () => {
    const { stack, signals } = asking({ timeoutMs: 30 });
    const outcome = await stack.run("toolCall", call, () => ({ content: "ran" }));
    expect(outcome).toMatchObject({ _tag: "Rejected", by: "asks", reason: expect.stringMatching(/timed out|timeout/i) });
    expect(signals[0]?.aborted).toBe(true);
  });

  it("at the run's deadline", async () => {
    const { stack, signals } = asking({});
    const outcome = await stack.run("toolCall", call, () => ({ content: "ran" }), { timeoutMs: 30 });
    expect(outcome._tag).toBe("Failed");
    expect(signals[0]?.aborted).toBe(true);
  });

  it("when the caller aborts", async () => {
    const { stack, signals } = asking({});
    const controller = new AbortController();
    const pending = stack.run("toolCall", call, () => ({ content: "ran" }), { signal: controller.signal });
    await new Promise((r) => setTimeout(r, 10));
    controller.abort(new Error("user left"));
    expect((await pending)._tag).toBe("Failed");
    expect((signals[0]?.reason as Error).message).toBe("user left");
  });

  it("when the signal the hook passed aborts, answering a denial", async () => {
    const controller = new AbortController();
    const { stack, signals } = asking({ signal: controller.signal });
    const pending = stack.run("toolCall", call, () => ({ content: "ran" }));
    await new Promise((r) => setTimeout(r, 10));
    controller.abort(new Error("enough"));
    expect(await pending).toMatchObject({
      _tag: "Rejected",
      reason: expect.stringMatching(/no answer before the hook gave up \(.*enough\)/),
    });
    expect(signals[0]?.aborted).toBe(true);
  });

  it("never runs the tool on an answer that comes after the hook gave up", async () => {
    let answer: (v: ApprovalAnswer) => void = () => {};
    const ran: unknown[] = [];
    const stack = createAgentStack({ approval: () => new Promise((r) => (answer = r)) }).use("toolCall", {
      name: "asks",
      timeoutMs: 20,
      before: async (_c, ctx) => ((await ctx.approve({ hook: "asks" })).decision === "approve" ? Continue : Reject("no")),
    });
    const outcome = await stack.run("toolCall", call, () => (ran.push(1), { content: "ran" }));
    answer({ decision: "approve" });
    await new Promise((r) => setTimeout(r, 10));
    expect(outcome._tag).toBe("Rejected");
    expect(ran).toEqual([]);
  });
});
