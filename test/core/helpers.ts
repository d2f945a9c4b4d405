import { createStack, gate, observe } from "../../src/core/index.ts";

export interface Call {
  readonly name: string;
  readonly input: Record<string, unknown>;
}
export interface Result {
  readonly content: string;
}

/** A tiny point set for engine tests: one gate and one observation point. */
export const points = {
  tool: gate<Call, Result>({
    name: "tool",
    subject: (c) => c.name,
    detail: (c) => (typeof c.input.command === "string" ? c.input.command : undefined),
  }),
  watch: observe<string, string>({ name: "watch" }),
};

export const newStack = (options?: Parameters<typeof createStack>[1]) => createStack(points, options);

export const call = (name = "Read", input: Record<string, unknown> = {}): Call => ({ name, input });

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export const echo = (c: { readonly name: string }) => ({ content: `ran ${c.name}` });
