/**
 * A second OS process of an AI SDK app with durable approvals on a real redis-server: it is handed
 * the conversation a first process paused, with the person's answer, as a web app's next request
 * would be. Each order gets a fresh deployment (nothing shared in memory with earlier orders). Run
 * by ai-sdk-approval-process.test.ts.
 *
 * argv: redis-url, key prefix. IPC in: an `Order`. IPC out: `{ ready }`, then one report per order.
 */
import type { ModelMessage } from "ai";
import { RedisStore } from "../../src/stores/redis.ts";
import { deployment } from "./ai-sdk-approval-fixture.ts";

/** A turn to answer: the first turn's messages and approval id, and the person's answer. */
export interface Order {
  readonly id: number;
  readonly messages?: ModelMessage[];
  readonly approvalId?: string;
  readonly approved?: boolean;
  readonly reason?: string;
  readonly middleware?: boolean;
  /** Whether the bash tool asks for approval itself (for deploys). */
  readonly ownApproval?: boolean;
  readonly exit?: true;
}

const [url = "", keyPrefix = ""] = process.argv.slice(2);
const store = new RedisStore({ connection: url, keyPrefix });

process.on("message", (order: Order) => {
  if (order.exit === true) {
    void store.close().finally(() => process.exit(0));
    return;
  }
  void answer(order).then(
    (report) => process.send!(report),
    (error: unknown) => process.send!({ id: order.id, error: String((error as Error)?.stack ?? error) }),
  );
});
process.send!({ ready: true });

async function answer(order: Order) {
  const app = deployment(store, { ownApproval: order.ownApproval === true });
  const result = await app.answer(
    { messages: order.messages ?? [], approvalId: order.approvalId ?? "" },
    order.approved === true,
    order.reason ?? "",
    { middleware: order.middleware ?? true },
  );
  return {
    id: order.id,
    pid: process.pid,
    text: result.text,
    ran: app.recorded.ran,
    lines: app.recorded.lines(),
    trace: app.recorded.trace.entries.map((e) => ({ hook: e.hook, phase: e.phase, action: e.action, reason: e.reason })),
  };
}
