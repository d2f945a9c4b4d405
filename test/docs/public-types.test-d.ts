import { describe, expectTypeOf, it } from "vitest";
import type { ChatModelLike, Invokable } from "../../src/langchain.ts";
import type { GatewayStack } from "../../src/claude-agent-sdk.ts";
import type {
  ChildEnvOptions,
  CommandHandler,
  EventPoint,
  LoadClaudeSettingsOptions,
  PointOfEvent,
  SettingsHandler,
} from "../../src/claude.ts";
import type { MemoryStore, MemoryStoreOptions, ModelHook, SdkCallOptions, SdkWrapOptions, TokenClaims } from "../../src/index.ts";

describe("types that public signatures use", () => {
  it("can be named by users from the entry points", () => {
    expectTypeOf<MemoryStoreOptions>().toEqualTypeOf<NonNullable<ConstructorParameters<typeof MemoryStore>[0]>>();
    expectTypeOf<CommandHandler>().toMatchTypeOf<SettingsHandler>();
    expectTypeOf<PointOfEvent<"PreToolUse">>().toEqualTypeOf<import("../../src/index.ts").AgentPoints["toolCall"]>();
    expectTypeOf<EventPoint["PreToolUse"]>().toEqualTypeOf<"toolCall">();
    expectTypeOf<ChatModelLike>().toMatchTypeOf<Invokable>();
    expectTypeOf<SdkWrapOptions<SdkCallOptions, never, never>["params"]>().toEqualTypeOf<SdkCallOptions>();
    expectTypeOf<GatewayStack>().not.toBeAny();
    expectTypeOf<ChildEnvOptions>().not.toBeAny();
    expectTypeOf<LoadClaudeSettingsOptions>().not.toBeAny();
    expectTypeOf<ModelHook>().not.toBeAny();
    expectTypeOf<TokenClaims>().not.toBeAny();
  });
});
