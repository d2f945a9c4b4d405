/**
 * A second OS process that resumes a paused mailer run with a person's decision, as a web app
 * does when the approver answers in another request. Run by openai-agents-approval.test.ts.
 *
 * argv: redis-url. IPC in: { state, decision: "approve" | "reject", message? }. IPC out: what happened.
 */
import { RunState, run } from "@openai/agents";
import { assistantMessage } from "@openai/agents/testing";
import { RedisStore } from "../../src/stores/redis.ts";
import { buildMailer } from "./openai-agents-fixture.ts";

interface Order {
  readonly state: string;
  readonly decision: "approve" | "reject";
  readonly message?: string;
}

const [url = ""] = process.argv.slice(2);
const store = new RedisStore({ connection: url, keyPrefix: "openai-agents-test:" });
process.on("message", (order: Order) => {
  void resume(order).then(
    async (report) => {
      await store.close();
      process.send!(report, () => process.exit(0));
    },
    async (error: unknown) => {
      await store.close();
      process.send!({ error: String(error), cause: String((error as { error?: unknown }).error ?? "") }, () => process.exit(0));
    },
  );
});
process.send!({ ready: true });

async function resume(order: Order) {
  const mailer = buildMailer(store, [[assistantMessage("The email is on its way.")]]);
  const state = await RunState.fromString(mailer.agent, order.state);
  for (const item of state.getInterruptions()) {
    if (order.decision === "approve") state.approve(item);
    else state.reject(item, order.message !== undefined ? { message: order.message } : undefined);
  }
  const result = await run(mailer.agent, state);
  await mailer.stack.flush();
  const read = (mailer.model.calls[0]?.request.input as Record<string, unknown>[] | undefined)
    ?.filter((item) => item.type === "function_call_result")
    .map((item) => (item.output as { text: string }).text);
  return {
    pid: process.pid,
    finalOutput: result.finalOutput,
    sent: mailer.sent,
    outcomes: mailer.events.map((e) => e.outcome._tag),
    read,
  };
}
