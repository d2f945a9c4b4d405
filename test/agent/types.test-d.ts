import { describe, expectTypeOf, it } from "vitest";
import {
  commandEnv,
  type AgentOptions,
  type AgentSession,
  type Notification,
  type SessionEnd,
  type SessionStart,
  type ToolExecuteOptions,
} from "../../src/agent/index.ts";
import type { ModelResponse } from "../../src/agent/types.ts";

describe("the agent's event types", () => {
  it("name Claude Code's documented values and take the ones it adds later, as the bridge passes them on", () => {
    expectTypeOf<"fork">().toMatchTypeOf<SessionStart["source"]>();
    expectTypeOf<"resume">().toMatchTypeOf<SessionEnd["reason"]>();
    expectTypeOf<"elicitation_dialog">().toMatchTypeOf<Notification["type"]>();
    expectTypeOf<"added-next-year">().toMatchTypeOf<Notification["type"]>();
    // Still strings, not anything.
    // @ts-expect-error a number is not a source
    const source: SessionStart["source"] = 1;
    void source;
  });
});

describe("the agent's options and what it hands over", () => {
  it("take notification delays as ms or false", () => {
    expectTypeOf<false>().toMatchTypeOf<NonNullable<AgentOptions["idleNotificationMs"]>>();
    expectTypeOf<250>().toMatchTypeOf<NonNullable<AgentOptions["permissionNotificationMs"]>>();
    expectTypeOf<true>().not.toMatchTypeOf<NonNullable<AgentOptions["permissionNotificationMs"]>>();
  });

  it("take a transcript as on, off or a place, whose path is the agent's to say", () => {
    expectTypeOf<{ dir: string; keep: boolean }>().toMatchTypeOf<NonNullable<AgentOptions["transcript"]>>();
    expectTypeOf<false>().toMatchTypeOf<NonNullable<AgentOptions["transcript"]>>();
    expectTypeOf<"/tmp/t">().not.toMatchTypeOf<NonNullable<AgentOptions["transcript"]>>();
    expectTypeOf<AgentSession["transcriptPath"]>().toEqualTypeOf<string | undefined>();
    const move = (session: AgentSession): void => {
      // @ts-expect-error where the transcript is is the agent's to say
      session.transcriptPath = "/tmp/t.jsonl";
    };
    void move;
  });

  it("give a tool the session's exported variables read-only, and commandEnv a plain environment", () => {
    expectTypeOf<ToolExecuteOptions["env"]>().toEqualTypeOf<Readonly<Record<string, string>> | undefined>();
    expectTypeOf(commandEnv).returns.toEqualTypeOf<Record<string, string>>();
    const touch = (options: ToolExecuteOptions): void => {
      // @ts-expect-error the session's variables are not the tool's to change
      options.env!.PATH = "/tmp";
    };
    void touch;
  });
});

describe("a model response's other parts", () => {
  it("are optional, read-only and of the adapter's own shapes", () => {
    const bare: ModelResponse = { text: "", toolCalls: [], finishReason: "stop", usage: { inputTokens: 0, outputTokens: 0 } };
    expectTypeOf(bare.parts).toEqualTypeOf<readonly unknown[] | undefined>();
    const withParts: ModelResponse = { ...bare, parts: [{ type: "reasoning", text: "hm" }] };
    // @ts-expect-error the list cannot be changed in place
    withParts.parts?.push({});
    // @ts-expect-error a single part is not a list
    const _single: ModelResponse = { ...bare, parts: { type: "reasoning", text: "hm" } };
  });
});
