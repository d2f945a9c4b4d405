import { describe, expect, it } from "vitest";
import fc from "fast-check";
import compose from "koa-compose";
import { Transform } from "../../src/core/index.ts";
import { call, newStack } from "./helpers.ts";

describe("properties", () => {
  it("orders befores by (priority, registration) and afters in exact reverse, for any priorities", () =>
    fc.assert(
      fc.asyncProperty(fc.array(fc.integer({ min: -5, max: 5 }), { minLength: 1, maxLength: 12 }), async (priorities) => {
        const seen: string[] = [];
        let stack = newStack();
        priorities.forEach((priority, i) => {
          stack = stack.use("tool", {
            name: `h${i}`,
            priority,
            before: () => void seen.push(`in${i}`),
            after: () => void seen.push(`out${i}`),
          });
        });
        await stack.run("tool", call(), () => ({ content: "" }));
        const expected = priorities
          .map((p, i) => ({ p, i }))
          .sort((a, b) => a.p - b.p || a.i - b.i)
          .map(({ i }) => i);
        expect(seen).toEqual([...expected.map((i) => `in${i}`), ...[...expected].reverse().map((i) => `out${i}`)]);
      }),
    ));

  it("gives the same Transform result under any completion order of async hooks", () =>
    fc.assert(
      fc.asyncProperty(fc.scheduler(), fc.array(fc.string({ maxLength: 3 }), { minLength: 1, maxLength: 8 }), async (s, parts) => {
        let stack = newStack();
        parts.forEach((part, i) => {
          stack = stack.use("tool", {
            name: `t${i}`,
            before: (c) => s.schedule(Promise.resolve(Transform({ ...c, name: c.name + part }))),
            after: (o) => s.schedule(Promise.resolve(Transform({ content: o.content + i }))),
          });
        });
        const outcome = await s.waitFor(stack.run("tool", call(""), (c) => ({ content: c.name })));
        const expected = parts.join("") + [...parts.keys()].reverse().join("");
        expect(outcome).toEqual({ _tag: "Completed", value: { content: expected } });
      }),
    ));

  it("produces the same around order as koa-compose for any mix of sync and async layers", () =>
    fc.assert(
      fc.asyncProperty(fc.array(fc.boolean(), { minLength: 0, maxLength: 10 }), async (asyncLayers) => {
        const ours: string[] = [];
        const theirs: string[] = [];
        let stack = newStack();
        asyncLayers.forEach((isAsync, i) => {
          stack = stack.use("tool", {
            name: `l${i}`,
            around: isAsync
              ? async (_c, next) => {
                  ours.push(`>${i}`);
                  await Promise.resolve();
                  const o = await next();
                  ours.push(`<${i}`);
                  return o;
                }
              : (_c, next) => {
                  ours.push(`>${i}`);
                  return next().then((o) => {
                    ours.push(`<${i}`);
                    return o;
                  });
                },
          });
        });
        await stack.run("tool", call(), () => {
          ours.push("op");
          return { content: "" };
        });
        const layers = asyncLayers.map((isAsync, i) =>
          isAsync
            ? async (_ctx: unknown, next: () => Promise<unknown>) => {
                theirs.push(`>${i}`);
                await Promise.resolve();
                await next();
                theirs.push(`<${i}`);
              }
            : (_ctx: unknown, next: () => Promise<unknown>) => {
                theirs.push(`>${i}`);
                return next().then(() => void theirs.push(`<${i}`));
              },
        );
        await compose([
          ...layers,
          async () => {
            theirs.push("op");
          },
        ])({});
        expect(ours).toEqual(theirs);
      }),
    ));

  it("keeps concurrent runs of one stack apart: no cross-talk between 1000 runs", async () => {
    const stack = newStack()
      .use("tool", {
        name: "tag",
        before: async (c) => {
          await new Promise((r) => setTimeout(r, Math.random() * 3));
          return Transform({ ...c, input: { ...c.input, tagged: true } });
        },
      })
      .use("tool", { name: "suffix", after: async (o, i) => Transform({ content: `${o.content}/${String(i.input.n)}` }) });
    const outcomes = await Promise.all(
      Array.from({ length: 1000 }, (_, n) =>
        stack.run("tool", call("Read", { n }), async (c) => ({ content: `${String(c.input.n)}:${String(c.input.tagged)}` })),
      ),
    );
    outcomes.forEach((o, n) => expect(o).toEqual({ _tag: "Completed", value: { content: `${n}:true/${n}` } }));
  });
});
