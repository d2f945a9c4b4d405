/**
 * A second process resuming a LangChain agent paused for approval: it reads the checkpoints the
 * first process saved, answers the interrupt with the decision it was given, and reports the
 * agent's messages (or the error) to its parent. Arguments: checkpoints file, tool log, decision
 * as JSON, and optionally a Redis URL whose store claims each answer once.
 */
import { Command } from "@langchain/langgraph";
import { createAgent, fakeModel, type BaseMessage } from "langchain";
import { langchainMiddleware } from "../../src/adapters/langchain.ts";
import { createAgentStack } from "../../src/agent/stack.ts";
import { approval, withMiddleware } from "../../src/middleware/index.ts";
import { RedisStore } from "../../src/stores/redis.ts";
import { answer, loggingBash, transcript } from "./langchain-fixtures.ts";
import { loadCheckpoints } from "./langchain-saver.ts";

const [file, log, decision, redisUrl] = process.argv.slice(2) as [string, string, string, string | undefined];
const store = redisUrl !== undefined ? new RedisStore({ connection: redisUrl }) : undefined;
const stack = withMiddleware(createAgentStack(), approval({ match: "bash" }));
const agent = createAgent({
  // The paused run goes on with the tool node: the model's next answer is the final one.
  model: fakeModel().respond(answer("pushed")),
  tools: [loggingBash(log)],
  middleware: [langchainMiddleware(stack, store !== undefined ? { store } : {})],
  checkpointer: loadCheckpoints(file),
});
try {
  const result = (await agent.invoke(new Command({ resume: JSON.parse(decision) }), { configurable: { thread_id: "approvals" } })) as {
    messages: BaseMessage[];
  };
  process.send?.({ ok: true, transcript: transcript(result.messages) });
} catch (error) {
  const e = error as Error & { cause?: Error };
  process.send?.({ ok: false, name: e.name, message: e.message, cause: e.cause?.name });
} finally {
  await store?.close();
}
