import { describe, expect, it } from "vitest";
import { approval } from "../../src/middleware/approval.ts";
import { audit } from "../../src/middleware/audit.ts";
import { budget } from "../../src/middleware/budget.ts";
import { highEntropy, pattern } from "../../src/middleware/detectors.ts";
import { cache } from "../../src/middleware/cache.ts";
import { chromeTraceRecorder, toChromeTrace } from "../../src/middleware/chrome-trace.ts";
import { fallback } from "../../src/middleware/fallback.ts";
import { finishReasonStop } from "../../src/middleware/finish-reason-stop.ts";
import { guards } from "../../src/middleware/guards.ts";
import { metrics } from "../../src/middleware/metrics.ts";
import { knownOptions } from "../../src/middleware/options.ts";
import { callLimit, rateLimit } from "../../src/middleware/rate-limit.ts";
import { redaction } from "../../src/middleware/redaction.ts";
import { createRedactor } from "../../src/middleware/redactor.ts";
import { retry } from "../../src/middleware/retry.ts";
import { stepLimit } from "../../src/middleware/step-limit.ts";
import { StreamRedactor } from "../../src/middleware/stream-redactor.ts";
import { timeLimit } from "../../src/middleware/time-limit.ts";
import { tokenBudget } from "../../src/middleware/token-budget.ts";
import { toolPolicy } from "../../src/middleware/tool-policy.ts";
import { tracing } from "../../src/middleware/tracing.ts";
import { truncateOutput } from "../../src/middleware/truncate-output.ts";

/** Each factory with options it accepts, and a misspelling of one of them a user would make. */
const factories: readonly [string, (options: never) => unknown, Record<string, unknown>, string, string][] = [
  ["guards", guards, { maxSteps: 10 }, "maxStep", "maxSteps"],
  ["stepLimit", stepLimit, { max: 10 }, "maximum", ""],
  ["tokenBudget", tokenBudget, { max: 100 }, "Max", "max"],
  ["timeLimit", timeLimit, { maxSeconds: 10 }, "maxSecond", "maxSeconds"],
  ["finishReasonStop", finishReasonStop, { reasons: ["length"] }, "reason", "reasons"],
  ["toolPolicy", toolPolicy, { allow: ["Read"] }, "alow", "allow"],
  ["rateLimit", rateLimit, { limit: 5 }, "window", "windowMs"],
  ["callLimit", callLimit, { max: 5 }, "limit", ""],
  ["budget", budget, { limit: 1000 }, "scop", "scope"],
  ["retry", retry, { attempts: 3 }, "attempt", "attempts"],
  ["fallback", fallback, { models: [{ id: "backup", generate: () => ({ content: "ok" }) }] }, "modles", "models"],
  ["cache", cache, { ttlMs: 1000, scope: "session" }, "ttl", "ttlMs"],
  ["truncateOutput", truncateOutput, { maxChars: 100 }, "maxchars", "maxChars"],
  ["redaction", redaction, {}, "detector", "detectors"],
  ["createRedactor", createRedactor, {}, "stratgy", "strategy"],
  ["highEntropy", highEntropy, { minLength: 30 }, "minLen", "minLength"],
  ['pattern "ticket"', (options: never) => pattern("ticket", /TCK-\d{6}/, options), { window: 10 }, "windw", "window"],
  ["approval", approval, { timeoutMs: 1000 }, "timeout", "timeoutMs"],
  ["audit", audit, { to: process.stdout }, "point", "points"],
  ["metrics", metrics, {}, "maxValue", "maxValues"],
  ["tracing", tracing, {}, "hookSpan", "hookSpans"],
  ["chromeTraceRecorder", chromeTraceRecorder, {}, "maxRun", "maxRuns"],
  ["toChromeTrace", (options: never) => toChromeTrace([], options), {}, "hook", "hooks"],
];

describe("every built-in middleware factory", () => {
  it.each(factories)("%s accepts its options", (_name, make, good) => {
    expect(() => make(good as never)).not.toThrow();
  });

  it.each(factories)(
    "%s refuses a misspelt option, naming the factory, the field and the nearest option",
    (name, make, good, typo, near) => {
      const made = () => make({ ...good, [typo]: 1 } as never);
      expect(made).toThrow(TypeError);
      expect(made).toThrow(`${name}: unknown option "${typo}"${near === "" ? ";" : ` (did you mean "${near}"?)`}`);
    },
  );

  it.each(factories.filter(([name]) => name !== "toChromeTrace"))("%s refuses options that are not an object", (name, make) => {
    for (const options of [null, "allow", 20, ["Read"]])
      expect(() => make(options as never)).toThrow(new RegExp(`^${name}: options must be an object, got `));
  });
});

describe("options nested in a middleware's options", () => {
  it("refuses a misspelt field in a role's rules of toolPolicy", () => {
    expect(() => toolPolicy({ roles: { dev: { alow: ["Read"] } as never } })).toThrow(
      'toolPolicy: roles.dev: unknown option "alow" (did you mean "allow"?); its options are allow, deny',
    );
  });

  it("refuses a misspelt field in redactor options given as redact", () => {
    expect(() => audit({ to: process.stdout, redact: { salts: "x" } as never })).toThrow(
      'audit: redact: unknown option "salts" (did you mean "salt"?)',
    );
    expect(() => tracing({ redact: { stratgy: "hash" } as never })).toThrow('tracing: redact: unknown option "stratgy"');
    expect(() => tracing({ redact: createRedactor() })).not.toThrow();
  });

  it("refuses a misspelt field of toolPolicy's paths", () => {
    expect(() => toolPolicy({ deny: ["Read(~/.ssh/**)"], paths: { projectdir: "/srv/app" } as never })).toThrow(
      'toolPolicy: paths: unknown option "projectdir" (did you mean "projectDir"?)',
    );
  });

  it("refuses a strategy for a kind no detector finds, naming the kind meant", () => {
    expect(() => redaction({ strategies: { emial: "mask" } as never })).toThrow(
      /^redaction: strategies\.emial: no detector finds the kind "emial" \(did you mean "email"\?\); the kinds are /,
    );
    expect(() => createRedactor({ strategies: { email: "mask" } })).not.toThrow();
  });

  it("says an AI SDK model given to fallback is not the language model it takes", () => {
    const sdkModel = { specificationVersion: "v3", provider: "openai", modelId: "gpt-4o-mini", doGenerate: async () => ({}) };
    expect(() => fallback({ models: [sdkModel as never] })).toThrow(
      'fallback: models[0] must be a language model { id, generate }, got an AI SDK model (specificationVersion "v3"): fallback takes agent-onion\'s LanguageModel, as createAgent does',
    );
  });

  it("names guards' own field, and the reason meant, for a misspelt finish reason", () => {
    expect(() => guards({ finishReasons: ["lenght" as never] })).toThrow(
      'guards: finishReasons has an unknown finish reason "lenght" (did you mean "length"?) (expected one of stop, length, tool-calls, content-filter, error, other)',
    );
    expect(() => finishReasonStop({ reasons: ["stopp" as never] })).toThrow(
      'finishReasonStop: reasons has an unknown finish reason "stopp" (did you mean "stop"?)',
    );
  });

  it("refuses a misspelt option of a StreamRedactor", () => {
    expect(() => new StreamRedactor(createRedactor(), { holdback: 4 } as never)).toThrow(
      'StreamRedactor: unknown option "holdback" (did you mean "holdBack"?)',
    );
  });
});

describe("knownOptions", () => {
  it("lists the options and suggests nothing when no option is near the unknown one", () => {
    expect(() => knownOptions("toolPolicy", { colour: 1 } as { allow?: string[]; deny?: string[] }, { allow: true, deny: true })).toThrow(
      new TypeError('toolPolicy: unknown option "colour"; its options are allow, deny'),
    );
  });

  it("returns the options it accepted", () => {
    const options = { allow: ["Read"] };
    expect(knownOptions("toolPolicy", options, { allow: true })).toBe(options);
  });
});
