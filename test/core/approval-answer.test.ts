import { describe, expect, it } from "vitest";
import { editProblem, plainData, readAnswer } from "../../src/core/approval-answer.ts";

describe("plainData", () => {
  it("copies JSON data, dropping undefined entries as JSON does", () => {
    const source = { a: [1, "x", null, true], b: { c: undefined, d: 2 } };
    const copy = plainData(source);
    expect(copy).toEqual({ a: [1, "x", null, true], b: { d: 2 } });
    expect(copy).not.toBe(source);
  });

  it("refuses class instances, functions, non-finite numbers and cycles, naming the path", () => {
    expect(() => plainData({ when: new Date() })).toThrow("when: a Date is not plain data");
    expect(() => plainData({ list: [1, () => 2] })).toThrow("list[1]: a function");
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    const sly = {
      get field() {
        throw proxy;
      },
    };
    expect(() => plainData(sly)).toThrow(/reading it threw/);
    expect(() => plainData({ n: Number.POSITIVE_INFINITY })).toThrow("n: Infinity is not a JSON number");
    const loop: Record<string, unknown> = {};
    loop.again = loop;
    expect(() => plainData(loop)).toThrow("again: refers to itself");
  });

  it("reads each property once, so a getter cannot answer differently when used", () => {
    let reads = 0;
    const copy = plainData({
      get decision() {
        reads++;
        return reads === 1 ? "approve" : "deny";
      },
    }) as { decision: string };
    expect([copy.decision, copy.decision]).toEqual(["approve", "approve"]);
    expect(reads).toBe(1);
  });

  it("refuses a __proto__ key at any depth, which a copy by assignment would turn into a prototype", async () => {
    expect(() => plainData(JSON.parse('{"input":{"__proto__":{"command":"rm -rf /"}}}'))).toThrow(
      /input.__proto__: a __proto__ key is not plain data/,
    );
    const answer = await readAnswer(JSON.parse('{"decision":"edit","input":{"__proto__":{"command":"rm -rf /"}}}'));
    expect(answer).toMatchObject({ decision: "deny", reason: expect.stringMatching(/__proto__ key/) });
    expect(await readAnswer(JSON.parse('{"__proto__":{"decision":"approve"}}'))).toMatchObject({ decision: "deny" });
  });

  it("refuses a key the schema does not name, also one every object inherits", async () => {
    for (const key of ["constructor", "toString", "hasOwnProperty", "valueOf", "isPrototypeOf"])
      expect(await readAnswer({ decision: "approve", [key]: "x" }), key).toMatchObject({
        decision: "deny",
        reason: expect.stringContaining(`${key} is unexpected`),
      });
  });

  it("bounds the size of what it copies", () => {
    expect(() => plainData(Array.from({ length: 200_000 }, () => 0))).toThrow(/more than 100000 values/);
  });
});

describe("readAnswer", () => {
  it("reads approve, deny and edit, keeping reason and who decided", async () => {
    expect(await readAnswer({ decision: "approve", reason: "fine", by: "alice" })).toEqual({
      decision: "approve",
      reason: "fine",
      by: "alice",
    });
    expect(await readAnswer({ decision: "deny", reason: "no" })).toEqual({ decision: "deny", reason: "no" });
    expect(await readAnswer({ decision: "edit", input: { a: 1 } })).toEqual({ decision: "edit", input: { a: 1 } });
  });

  it("turns anything else into a denial that says what was wrong", async () => {
    expect(await readAnswer(false)).toMatchObject({
      decision: "deny",
      reason: expect.stringMatching(/expected \{ decision: "approve" \| "deny" \| "edit".*got false/),
    });
    expect(await readAnswer({ decision: "edit", input: { a: 1 }, extra: true })).toMatchObject({
      decision: "deny",
      reason: expect.stringMatching(/extra is unexpected/),
    });
  });
});

describe("readAnswer's schema, field by field", () => {
  const problem = (reason: string) => ({ decision: "deny", reason: `the approver's answer is not an approval: ${reason}` });
  const table: readonly (readonly [unknown, unknown])[] = [
    [{}, problem("decision is missing")],
    [{ approved: true }, problem("decision is missing")],
    [{ decision: undefined }, problem("decision is missing")],
    [{ decision: "reject" }, problem('decision: expected "approve" | "deny" | "edit", got "reject"')],
    [{ decision: true }, problem('decision: expected "approve" | "deny" | "edit", got true')],
    [{ decision: ["approve"] }, problem('decision: expected "approve" | "deny" | "edit", got ["approve"]')],
    [{ decision: "approve", input: { a: 1 } }, problem('input is unexpected, expected: "decision" | "reason" | "by"')],
    [{ x: 1, decision: "approve" }, problem('x is unexpected, expected: "decision" | "reason" | "by"')],
    [{ decision: "approve", reason: 5 }, problem("reason: expected string, got 5")],
    [{ decision: "approve", reason: null }, problem("reason: expected string, got null")],
    [{ decision: "deny", by: 3 }, problem("by: expected string, got 3")],
    [{ decision: "edit" }, problem("input is missing")],
    [{ decision: "edit", input: undefined }, problem("input is missing")],
    [{ decision: "edit", input: 1, reason: 2 }, problem("reason: expected string, got 2")],
    [
      { decision: "edit", input: null },
      { decision: "edit", input: null },
    ],
    [{ decision: "approve", reason: undefined, by: undefined }, { decision: "approve" }],
    [
      { decision: "deny", reason: "" },
      { decision: "deny", reason: "denied by the approver" },
    ],
  ];
  it.each(table.map(([given, read]) => [JSON.stringify(given), given, read] as const))("%s", async (_name, given, read) => {
    expect(await readAnswer(given)).toEqual(read);
  });
});

describe("editProblem", () => {
  const call = { id: "c1", name: "Bash", input: { command: "ls", env: { A: "1" }, args: ["-l"] } };
  const subject = (c: unknown) => (c as { name?: string }).name;

  it("accepts an edit of the same shape and subject, with fields added or dropped below the top", () => {
    expect(editProblem(call, { ...call, input: { command: "ls -la" } }, subject)).toBeUndefined();
    expect(editProblem(call, { ...call, input: { ...call.input, timeout: 5 } }, subject)).toBeUndefined();
  });

  it("refuses another kind, a dropped top-level field, a changed field kind at any depth, and another subject", () => {
    expect(editProblem(call, "ls", subject)).toBe("the edit turns an object into a string");
    expect(editProblem(call, { id: "c1", name: "Bash" }, subject)).toBe('the edit drops the field "input"');
    expect(editProblem(call, { ...call, extra: 1 }, subject)).toBe('the edit adds the field "extra"');
    expect(editProblem(call, { ...call, input: { ...call.input, env: "A=1" } }, subject)).toBe(
      "input.env: the edit turns an object into a string",
    );
    expect(editProblem(call, { ...call, input: { ...call.input, args: [1] } }, subject)).toBe(
      "input.args[0]: the edit turns a string into a number",
    );
    expect(editProblem(call, { ...call, name: "Write" }, subject)).toBe('the edit changes what guards matched on ("Bash" to "Write")');
  });
});
