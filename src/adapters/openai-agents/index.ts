/**
 * The OpenAI Agents SDK adapter (`@openai/agents`): one stack guards an agent built on the SDK.
 * Model calls run through `modelCall` (`guardModel`, `guardModelProvider`).
 */
export { guardModel, guardModelProvider, type GuardModelOptions, type GuardModelStack, type ModelCallInfo } from "./model.ts";
