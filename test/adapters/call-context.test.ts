import { describe, expect, it } from "vitest";
import { CallContext } from "../../src/adapters/call-context.ts";

describe("CallContext", () => {
  it("gives no text to attempts when no hook added any", () => {
    const context = new CallContext(undefined);
    expect([context.forAttempt(), context.forAttempt()]).toEqual([[], []]);
  });

  it("gives an attempt each hook's text once, as the hook gave it for that attempt, however late the first text came", () => {
    const heard: string[] = [];
    const context = new CallContext((text) => void heard.push(text));
    context.forAttempt(); // attempt 1 calls the provider: no hook had added anything
    context.forAttempt(); // so does attempt 2
    context.push("Attempt 3", "counter"); // the hooks a retry runs again, before attempt 3
    context.push("Tenant: acme", "tenant");
    expect(context.forAttempt()).toEqual(["Attempt 3", "Tenant: acme"]);
    context.push("Attempt 4", "counter");
    expect(context.forAttempt()).toEqual(["Tenant: acme", "Attempt 4"]); // the counter's earlier text withdrawn
    expect(heard).toEqual(["Attempt 3", "Tenant: acme", "Attempt 4"]);
  });
});
