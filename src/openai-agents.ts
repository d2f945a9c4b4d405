/**
 * `agent-onion/openai-agents`: one stack around an OpenAI Agents SDK agent, its model and its
 * function tools, with approvals that pause through the SDK's own interruptions. Needs the
 * optional peer `@openai/agents`.
 *
 * @module agent-onion/openai-agents
 */
export * from "./adapters/openai-agents/index.ts";
