import vm from "node:vm";
import { describe, expect, it, vi } from "vitest";
import { createAgent, createAgentStack, createScriptedModel, defineTool } from "../../src/agent/index.ts";
import { withMiddleware } from "../../src/middleware/apply.ts";
import { redaction } from "../../src/middleware/redaction.ts";
import { createRedactor } from "../../src/middleware/redactor.ts";
import { toolMessagesSeen } from "./harness.ts";
import { cpuMs } from "../support/timing.ts";

const KEY = "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789";

class Row {
  constructor(
    readonly id: bigint,
    readonly email: string,
    readonly apiKey: string,
  ) {}
}

/** Values that are not plain objects but reach the model as their JSON. */
const variants: Record<string, () => unknown> = {
  "a class instance": () => new Row(7n, "alice@example.com", KEY),
  "an array of class instances": () => [new Row(7n, "alice@example.com", KEY)],
  "another realm's object": () => vm.runInNewContext(`({ email: "alice@example.com", apiKey: "${KEY}" })`),
  "a plain object with a toJSON": () => ({ toJSON: () => ({ email: "alice@example.com", apiKey: KEY }) }),
  "a URL": () => ({ link: new URL(`https://x.test/?key=${KEY}`) }),
};

describe("a redactor, on values that are not plain objects", () => {
  for (const [label, make] of Object.entries(variants)) {
    it(`scans what ${label} serialises to and returns its redacted plain form`, () => {
      const r = createRedactor().value(make());
      expect(r.changed).toBe(true);
      expect(r.kinds).toContain("api_key");
      expect(JSON.stringify(r.value, (_k, v: unknown) => (typeof v === "bigint" ? v.toString() : v))).not.toContain(KEY);
    });

    it(`reports a blocked kind in ${label}`, () => {
      expect(createRedactor({ strategies: { api_key: "block" } }).value(make()).blocked).toEqual(["api_key"]);
    });
  }

  it("returns a clean value it could not rebuild as it is (a Date stays a Date)", () => {
    const at = new Date(0);
    const row = new Row(1n, "nobody", "nothing secret");
    const value = { at, row };
    const r = createRedactor().value(value);
    expect(r.changed).toBe(false);
    expect(r.value).toBe(value);
  });

  it("refuses a value whose serialisation fails, even if it would serialise the next time (a relation not loaded yet)", () => {
    for (const failures of [1, Infinity]) {
      let reads = 0;
      class Account {
        readonly id = 7;
        get credentials() {
          if (reads++ < failures) throw new Error("relation not loaded");
          return { apiKey: KEY };
        }
        toJSON() {
          return { id: this.id, credentials: this.credentials };
        }
      }
      expect(() => createRedactor().value({ account: new Account() })).toThrow();
    }
    const nothing = { toJSON: () => undefined };
    expect(createRedactor().value({ nothing }).value).toEqual({ nothing });
  });

  it("scans a non-plain value with a cycle as the loop writes it, the cycle as [Circular]", () => {
    const clean = new Row(1n, "x", "y") as Row & { self?: unknown };
    clean.self = clean;
    expect(createRedactor().value(clean)).toMatchObject({ value: clean, changed: false });
    const leaky = new Row(1n, "alice@example.com", KEY) as Row & { self?: unknown };
    leaky.self = leaky;
    expect(createRedactor().value(leaky).value).toEqual({
      id: "1",
      email: "[REDACTED:email]",
      apiKey: "[REDACTED:api_key]",
      self: "[Circular]",
    });
    expect(createRedactor({ strategies: { api_key: "block" } }).value(leaky).blocked).toEqual(["api_key"]);
  });
});

describe("a redactor, on bytes", () => {
  it("returns a Buffer as it is, without serialising it (the model reads its bytes as numbers)", () => {
    const toJSON = vi.spyOn(Buffer.prototype, "toJSON");
    try {
      const bytes = Buffer.from(`key ${KEY}`);
      const value = { content: bytes };
      expect(createRedactor().value(value)).toMatchObject({ value, changed: false, kinds: [] });
      expect(toJSON).not.toHaveBeenCalled();
    } finally {
      toJSON.mockRestore();
    }
  });

  it("returns a megabyte Buffer as it is, at once (number by number it took about a second)", () => {
    const value = { content: Buffer.alloc(1_000_000, "a") };
    let r!: ReturnType<ReturnType<typeof createRedactor>["value"]>;
    expect(cpuMs(() => (r = createRedactor().value(value)))).toBeLessThan(200);
    expect(r.value).toBe(value);
  });

  it("scans bytes that carry text of their own into the JSON: an own field, a toJSON, a view's property", () => {
    class Tagged extends Uint8Array {
      note = `token ${KEY}`;
    }
    class Exported extends Uint8Array {
      toJSON() {
        return { token: KEY };
      }
    }
    const buffer = Object.assign(Buffer.from("x"), { toJSON: () => ({ token: KEY }) });
    const view = Object.assign(new DataView(new ArrayBuffer(2)), { meta: KEY });
    for (const [label, bytes] of Object.entries({ Tagged: new Tagged([1, 2]), Exported: new Exported([1]), buffer, view })) {
      const r = createRedactor().value({ content: bytes });
      expect([label, r.kinds.includes("api_key")]).toEqual([label, true]);
      expect([label, JSON.stringify(r.value)]).not.toContain(KEY);
    }
  });
});

describe("redaction of a tool's answer that is an object graph with a cycle (an ORM entity)", () => {
  class User {
    readonly posts: Post[] = [];
    constructor(
      readonly name: string,
      readonly email: string,
    ) {}
  }
  class Post {
    constructor(
      readonly title: string,
      readonly author: User,
    ) {}
  }

  it("sends the model what the loop writes without redaction, the secret redacted", async () => {
    const user = new User("alice", "alice@example.com");
    user.posts.push(new Post("hello", user));
    const model = createScriptedModel({ turns: [{ toolCalls: [{ name: "GetUser", input: {} }] }, "done"] });
    const tool = defineTool({ name: "GetUser", execute: () => user });
    const turn = await createAgent({ model, stack: withMiddleware(createAgentStack(), redaction()), tools: [tool] }).run("go");
    expect(turn.status).toBe("completed");
    expect(toolMessagesSeen(model)).toEqual([
      '{"name":"alice","email":"[REDACTED:email]","posts":[{"title":"hello","author":"[Circular]"}]}',
    ]);
  });
});

describe("redaction of tool output that is not plain data, through the reference loop", () => {
  for (const [label, make] of Object.entries(variants)) {
    it(`keeps the secret in ${label} from the model, and blocks it under block`, async () => {
      for (const strategies of [{}, { api_key: "block" as const }]) {
        const model = createScriptedModel({ turns: [{ toolCalls: [{ name: "Lookup", input: {} }] }, "done"] });
        const tool = defineTool({ name: "Lookup", execute: make });
        await createAgent({ model, stack: withMiddleware(createAgentStack(), redaction({ strategies })), tools: [tool] }).run("go");
        const seen = toolMessagesSeen(model);
        expect(seen).toHaveLength(1);
        expect(seen.join("")).not.toContain(KEY);
        if ("api_key" in strategies) expect(seen[0]).toContain("blocked by redaction");
      }
    });
  }
});
