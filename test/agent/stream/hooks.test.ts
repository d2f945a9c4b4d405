import { describe, expect, it } from "vitest";
import { Continue } from "../../../src/core/index.ts";
import { chunkHook, outputGate, type ChunkHookSpec, type OutputGateSpec } from "../../../src/agent/index.ts";

const pass = () => Continue;
const keep = () => undefined;

describe("chunkHook", () => {
  it("refuses a spec that is not an object, at creation", () => {
    expect(() => chunkHook(null as unknown as ChunkHookSpec)).toThrow(
      new TypeError("chunkHook: the spec must be an object { name, chunk }, got null"),
    );
  });

  it("refuses a missing chunk transform at creation, instead of failing every stream", () => {
    expect(() => chunkHook({ name: "c" } as ChunkHookSpec)).toThrow(
      new TypeError('chunkHook "c": chunk must be a function, got undefined'),
    );
  });

  it("refuses a chunk transform that is not a function, saying what was given", () => {
    expect(() => chunkHook({ name: "c", chunk: "uppercase" } as unknown as ChunkHookSpec)).toThrow(
      new TypeError('chunkHook "c": chunk must be a function, got "uppercase"'),
    );
  });

  it("refuses a before that is not a function, since the hook calls it itself", () => {
    expect(() => chunkHook({ name: "c", chunk: keep, before: 1 } as unknown as ChunkHookSpec)).toThrow(
      new TypeError('chunkHook "c": before must be a function, got 1'),
    );
  });
});

describe("outputGate", () => {
  it("refuses a spec that is not an object, at creation", () => {
    expect(() => outputGate(undefined as unknown as OutputGateSpec)).toThrow(
      new TypeError("outputGate: the spec must be an object { name, check }, got undefined"),
    );
  });

  it("refuses a check that is not a function, saying what was given", () => {
    expect(() => outputGate({ name: "g", check: "no secrets" } as unknown as OutputGateSpec)).toThrow(
      new TypeError('outputGate "g": check must be a function, got "no secrets"'),
    );
  });

  it("refuses a replacement that is not a function, instead of failing when it first blocks", () => {
    expect(() => outputGate({ name: "g", check: pass, replacement: "[blocked]" } as unknown as OutputGateSpec)).toThrow(
      new TypeError('outputGate "g": replacement must be a function, got "[blocked]"'),
    );
  });

  it("refuses a before that is not a function, since the hook calls it itself", () => {
    expect(() => outputGate({ name: "g", check: pass, before: {} } as unknown as OutputGateSpec)).toThrow(
      new TypeError('outputGate "g": before must be a function, got {}'),
    );
  });
});
