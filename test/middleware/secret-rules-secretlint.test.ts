import { lintSource } from "@secretlint/core";
import { creator as recommended } from "@secretlint/secretlint-rule-preset-recommend";
import { describe, expect, it } from "vitest";
import { defaultDetectors, scan } from "../../src/middleware/detectors.ts";
import { coveredElsewhere, tokenRules } from "../../src/middleware/secret-rules.ts";
import { corpus } from "../fixtures/redaction/corpus.ts";

/** What secretlint's recommended preset reports in `content`: rule and range. */
const secretlint = async (content: string) => {
  const result = await lintSource({
    source: { content, filePath: "/corpus.txt", contentType: "text" },
    options: { config: { rules: [{ id: recommended.meta.id, rule: recommended, options: {} }] } },
  });
  return result.messages.map((m) => ({ rule: m.ruleId, start: m.range[0], end: m.range[1] }));
};

describe("the token rules, against secretlint's recommended preset", () => {
  it("cover every rule of the preset, by a token rule or another detector (a new rule in the preset fails here)", () => {
    const ours = new Set([...tokenRules.map((r) => r.source), ...Object.keys(coveredElsewhere).map((id) => `secretlint:${id}`)]);
    const theirs = recommended.rules.map((r) => `secretlint:${r.meta.id}`);
    expect(theirs.filter((id) => !ours.has(id))).toEqual([]);
    // And name only rules the preset has: a renamed or removed one fails too.
    const secretlintSources = tokenRules.map((r) => r.source).filter((s) => s.startsWith("secretlint:"));
    expect(secretlintSources.filter((s) => !theirs.includes(s))).toEqual([]);
  });

  it("find everything secretlint finds in the labelled corpus, where it finds it", async () => {
    let reported = 0;
    const missed: string[] = [];
    for (const item of corpus) {
      const ours = scan(item.text, defaultDetectors());
      for (const found of await secretlint(item.text)) {
        reported++;
        if (!ours.some((d) => d.start < found.end && found.start < d.end))
          missed.push(`${item.id}: ${found.rule} ${item.text.slice(found.start, found.end)}`);
      }
    }
    expect(missed).toEqual([]);
    expect(reported).toBeGreaterThan(30); // the preset did run
  });
});
