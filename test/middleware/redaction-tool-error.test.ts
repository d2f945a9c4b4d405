import { inspect, types } from "node:util";
import { describe, expect, it } from "vitest";
import { createAgentStack, type ToolCall } from "../../src/agent/index.ts";
import { withMiddleware } from "../../src/middleware/apply.ts";
import { redaction } from "../../src/middleware/redaction.ts";
import { retry } from "../../src/middleware/retry.ts";
import { recordingTool, runAgent, toolMessagesSeen } from "./harness.ts";

const KEY = "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789";
const EMAIL = "alice@example.com";
const call: ToolCall = { id: "c1", name: "Deploy", input: {} };

/** An HTTP client's error, with the credential in its message, as such clients write them. */
class HttpError extends Error {
  override name = "HttpError";
  constructor(readonly status: number) {
    super(`${status} Unauthorized: invalid key ${KEY} for ${EMAIL}`);
  }
}

/** A client's error whose status lives in a #private field, read through a getter. */
class PrivateStatusError extends Error {
  readonly #status: number;
  constructor(status: number) {
    super(`${status} from 10.0.0.5 for ${EMAIL}`);
    this.#status = status;
  }
  get status(): number {
    return this.#status;
  }
}

/** The same, kept in a WeakMap. */
const statuses = new WeakMap<object, number>();
class WeakMapStatusError extends Error {
  constructor(status: number) {
    super(`${status} from 10.0.0.5 for ${EMAIL}`);
    statuses.set(this, status);
  }
  get status(): number | undefined {
    return statuses.get(this);
  }
}

describe("redaction of a tool's failure", () => {
  it("keeps the secret in a thrown error's message from the model, whatever the strategy", async () => {
    for (const strategies of [{}, { api_key: "block" as const }]) {
      const deploy = recordingTool("Deploy", () => {
        throw new HttpError(401);
      });
      const { turn, model } = await runAgent(
        withMiddleware(createAgentStack(), redaction({ strategies })),
        [{ toolCalls: [{ name: "Deploy", input: {} }] }, "done"],
        { tools: [deploy] },
      );
      expect(turn.status).toBe("completed");
      expect(toolMessagesSeen(model)).toEqual([
        "Tool Deploy failed: 401 Unauthorized: invalid key [REDACTED:api_key] for [REDACTED:email]",
      ]);
      expect(JSON.stringify([model.requests, turn.result?.messages])).not.toContain(KEY);
    }
  });

  it("scrubs the name of a failure with no message, which is what the model reads then", async () => {
    class AuthError extends Error {
      override get name() {
        return `AuthError ${KEY}`;
      }
    }
    const own = Object.assign(new Error(""), { name: `AuthError ${KEY}` });
    for (const thrown of [own, new AuthError("")]) {
      const deploy = recordingTool("Deploy", () => {
        throw thrown;
      });
      const { model } = await runAgent(
        withMiddleware(createAgentStack(), redaction()),
        [{ toolCalls: [{ name: "Deploy", input: {} }] }, "done"],
        { tools: [deploy] },
      );
      expect(toolMessagesSeen(model)).toEqual(["Tool Deploy failed: AuthError [REDACTED:api_key]"]);
    }
  });

  it("scans the message as the model reads it, without the terminal escapes or controls inside a key", async () => {
    const split = { ansi: "\u001b[0m", bel: "\u0007", osc: "\u001b]0;title\u0007" };
    for (const [label, inside] of Object.entries(split)) {
      const broken = `${KEY.slice(0, 20)}${inside}${KEY.slice(20)}`;
      for (const thrown of [new Error(`401 invalid key ${broken}`), `401 invalid key ${broken}`]) {
        const deploy = recordingTool("Deploy", () => {
          throw thrown;
        });
        const { model } = await runAgent(
          withMiddleware(createAgentStack(), redaction({ strategies: { api_key: "block" } })),
          [{ toolCalls: [{ name: "Deploy", input: {} }] }, "done"],
          { tools: [deploy] },
        );
        expect([label, toolMessagesSeen(model)]).toEqual([label, ["Tool Deploy failed: 401 invalid key [REDACTED:api_key]"]]);
      }
    }
  });

  it("leaves the outcome Failed with a scrubbed copy of the error, its class, name and status kept", async () => {
    const thrown = new HttpError(401);
    const stack = withMiddleware(createAgentStack(), redaction());
    const outcome = await stack.run("toolCall", call, () => {
      throw thrown;
    });
    expect(outcome._tag).toBe("Failed");
    const error = (outcome as { error: HttpError }).error;
    expect(error).not.toBe(thrown);
    expect(error).toBeInstanceOf(HttpError);
    expect(types.isNativeError(error)).toBe(true);
    expect(error).toMatchObject({
      name: "HttpError",
      status: 401,
      message: "401 Unauthorized: invalid key [REDACTED:api_key] for [REDACTED:email]",
    });
    expect(String(error.stack)).not.toContain(KEY);
    expect(inspect(error)).not.toContain(KEY);
  });

  it("reads fields kept in #private fields or a WeakMap as the original does, so an outer retry still judges it by its status", async () => {
    for (const Failure of [PrivateStatusError, WeakMapStatusError]) {
      let attempts = 0;
      const stack = withMiddleware(
        createAgentStack(),
        redaction(),
        retry({ point: "toolCall", attempts: 3, baseMs: 0, retryOn: (e) => (e as PrivateStatusError).status === 503 }),
      );
      const outcome = await stack.run("toolCall", call, () => {
        attempts++;
        throw new Failure(503);
      });
      expect([Failure.name, outcome._tag, attempts]).toEqual([Failure.name, "Failed", 3]);
      const error = (outcome as { error: PrivateStatusError }).error;
      expect(error).toBeInstanceOf(Failure);
      expect(types.isNativeError(error)).toBe(true);
      expect({ status: error.status, message: error.message }).toEqual({
        status: 503,
        message: "503 from [REDACTED:ip_address] for [REDACTED:email]",
      });
    }
  });

  it("leaves a DOMException a failure, scrubbed, that still reads as one", async () => {
    const stack = withMiddleware(createAgentStack(), redaction());
    const outcome = await stack.run("toolCall", call, () => {
      throw new DOMException(`denied for ${KEY}`, "NotAllowedError");
    });
    expect(outcome._tag).toBe("Failed");
    const error = (outcome as { error: DOMException }).error;
    expect(error).toBeInstanceOf(DOMException);
    expect({ name: error.name, message: error.message }).toEqual({ name: "NotAllowedError", message: "denied for [REDACTED:api_key]" });
    expect(inspect(error)).not.toContain(KEY);
  });

  it("leaves a failure it cannot copy a failure, as a plain error with the scrubbed message", async () => {
    const stack = withMiddleware(createAgentStack(), redaction());
    const unlistable = new Proxy(new HttpError(401), {
      ownKeys: () => {
        throw new Error("no keys");
      },
    });
    const outcome = await stack.run("toolCall", call, () => {
      throw unlistable;
    });
    expect(outcome).toMatchObject({
      _tag: "Failed",
      error: { message: "401 Unauthorized: invalid key [REDACTED:api_key] for [REDACTED:email]" },
    });
    expect(inspect((outcome as { error: unknown }).error)).not.toContain(KEY);
  });

  it("never rewrites the error that was thrown: the application may hold it too", async () => {
    const thrown = new HttpError(401);
    const { message, stack: trace } = thrown;
    const stack = withMiddleware(createAgentStack(), redaction({ strategy: "hash" }));
    await stack.run("toolCall", call, () => {
      throw thrown;
    });
    expect(thrown.message).toBe(message);
    expect(thrown.stack).toBe(trace);
    expect(Object.getOwnPropertyDescriptor(thrown, "message")).toMatchObject({ enumerable: false, writable: true });
  });

  it("still lets an outer retry judge the failure by its status", async () => {
    let attempts = 0;
    const stack = withMiddleware(
      createAgentStack(),
      redaction(),
      retry({ point: "toolCall", attempts: 3, baseMs: 0, retryOn: (e) => (e as HttpError).status === 503 }),
    );
    const outcome = await stack.run("toolCall", call, () => {
      attempts++;
      if (attempts < 3) throw new HttpError(503);
      return { content: "deployed" };
    });
    expect(outcome).toMatchObject({ _tag: "Completed", value: { content: "deployed" } });
    expect(attempts).toBe(3);
  });

  it("scrubs a frozen error into a copy of the same class, and a thrown string or plain object", async () => {
    const stack = withMiddleware(createAgentStack(), redaction());
    const frozen = await stack.run("toolCall", call, () => {
      throw Object.freeze(new HttpError(401));
    });
    expect((frozen as { error: HttpError }).error).toBeInstanceOf(HttpError);
    expect((frozen as { error: HttpError }).error).toMatchObject({
      status: 401,
      message: "401 Unauthorized: invalid key [REDACTED:api_key] for [REDACTED:email]",
    });
    const text = await stack.run("toolCall", call, () => {
      throw `bad key ${KEY}`;
    });
    expect(text).toMatchObject({ _tag: "Failed", error: "bad key [REDACTED:api_key]" });
    const object = await stack.run("toolCall", call, () => {
      throw { status: 401, detail: `bad key ${KEY}` };
    });
    expect(object).toMatchObject({ _tag: "Failed", error: { status: 401, detail: "bad key [REDACTED:api_key]" } });
  });

  it("scrubs the keys of a thrown object too", async () => {
    const stack = withMiddleware(createAgentStack(), redaction());
    const outcome = await stack.run("toolCall", call, () => {
      throw { status: 409, conflicts: { [EMAIL]: "exists", "bob@example.com": "exists" } };
    });
    expect(outcome).toMatchObject({
      _tag: "Failed",
      error: { status: 409, conflicts: { "[REDACTED:email]": "exists", "[REDACTED:email]#2": "exists" } },
    });
  });

  it("leaves a thrown object it cannot write as JSON a failure (a cycle, a getter that throws)", async () => {
    const stack = withMiddleware(createAgentStack(), redaction());
    const cyclic: Record<string, unknown> = { detail: `bad key ${KEY}` };
    cyclic.self = cyclic;
    const unreadable = {
      get detail(): string {
        throw new Error("not loaded");
      },
    };
    for (const thrown of [cyclic, unreadable]) {
      const outcome = await stack.run("toolCall", call, () => {
        throw thrown;
      });
      expect(outcome._tag).toBe("Failed");
      expect(inspect(outcome)).not.toContain(KEY);
    }
  });

  it("lets a clean failure through as it is", async () => {
    const boom = new Error("disk full");
    const outcome = await withMiddleware(createAgentStack(), redaction()).run("toolCall", call, () => {
      throw boom;
    });
    expect(outcome).toMatchObject({ _tag: "Failed", error: boom });
    expect((outcome as { error: unknown }).error).toBe(boom);
  });
});
