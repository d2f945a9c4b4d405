import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { duplicateKeys, parseJson, SerializeError, stringifyEvent } from "../../src/executors/json.ts";

describe("parseJson", () => {
  it("drops __proto__, constructor and prototype keys at every depth", () => {
    const value = parseJson('{"a":1,"__proto__":{"polluted":true},"b":{"constructor":{"prototype":{"polluted":true}},"c":2}}');
    expect(value).toEqual({ a: 1, b: { c: 2 } });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("never pollutes Object.prototype, whatever keys the JSON has", () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.constantFrom("__proto__", "constructor", "prototype"), (value, key) => {
        const text = JSON.stringify({ [key]: { polluted: true }, nested: [{ [key]: value }] });
        const parsed = parseJson(text) as Record<string, unknown>;
        return ({} as Record<string, unknown>).polluted === undefined && !Object.hasOwn(parsed, key);
      }),
    );
  });
});

describe("duplicateKeys", () => {
  it("names each key given twice in one object, by its path, however it is escaped", () => {
    expect(duplicateKeys('{"decision":"approve","decision":"block"}')).toEqual(["decision"]);
    expect(duplicateKeys('{"a":{"b":1,"b":2},"c":[{"d":1,"d":2}],"x":"\\"y\\":","decisio\\u006e":1,"decision":2}')).toEqual([
      "a.b",
      "c.d",
      "decision",
    ]);
    expect(duplicateKeys('{"a":{"k":1},"b":{"k":1},"s":"{\\"k\\":1,\\"k\\":2}"}')).toEqual([]);
  });

  it("finds none in what JSON.stringify writes, and finds what a repeated key adds", () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), fc.string(), (value, key) => {
        const text = JSON.stringify(value);
        if (duplicateKeys(text).length !== 0) return false;
        const doubled = `{${JSON.stringify(key)}:1,${text.slice(1, -1)}${text === "{}" ? "" : ","}${JSON.stringify(key)}:2}`;
        return duplicateKeys(doubled).includes(key);
      }),
    );
  });
});

describe("stringifyEvent", () => {
  it("names the field that JSON cannot carry", () => {
    expect(() => stringifyEvent({ tool_input: { n: 1n } })).toThrow(/tool_input\.n.*BigInt/);
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    expect(() => stringifyEvent({ tool_input: cyclic })).toThrow(/tool_input\.self.*circular/);
    expect(() => stringifyEvent({ list: [1, () => 2] })).toThrow(/list\[1\].*function/);
  });

  it("refuses an event larger than its cap before sending anything", () => {
    expect(() => stringifyEvent({ text: "x".repeat(1000) }, 100)).toThrow(SerializeError);
  });

  it("refuses nesting deeper than its limit instead of overflowing the stack", () => {
    let deep: unknown = "leaf";
    for (let i = 0; i < 10_000; i++) deep = { d: deep };
    expect(() => stringifyEvent(deep)).toThrow(/nesting deeper/);
  });

  it("round-trips any JSON value, less the keys that could pollute prototypes", () => {
    const dangerous = new Set(["__proto__", "constructor", "prototype"]);
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = stringifyEvent({ v: value });
        const expected = JSON.parse(JSON.stringify({ v: value }), (key, v) => (dangerous.has(key) ? undefined : v));
        expect(JSON.parse(text)).toEqual(expected);
      }),
      { numRuns: 2000 },
    );
  });
});
