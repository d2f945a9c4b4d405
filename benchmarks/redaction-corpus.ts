/**
 * Precision and recall of the default detectors on the labelled corpus
 * (test/fixtures/redaction/corpus.ts), per kind and overall, before the rule-table detectors and
 * now, in one run.
 *
 *   npx tsx benchmarks/redaction-corpus.ts [--before <ref>] [--misses]
 *
 * `--misses` lists what each set missed and what it took for a secret.
 */
import { defaultDetectors, scan } from "../src/middleware/detectors.ts";
import { corpus } from "../test/fixtures/redaction/corpus.ts";
import { byKey, figures, scoreItems, type Figures, type ItemScore } from "../test/fixtures/redaction/score.ts";
import { beforeRef, loadDetectorsAt } from "./redaction-baseline.ts";
import { fmt, parseArgs, textTable } from "./util.ts";

const args = parseArgs(process.argv.slice(2));
const before = await loadDetectorsAt(beforeRef(args.get("before")));
const sets = [before, { label: "now", detectors: defaultDetectors(), scan }];
const scored = sets.map((set) => ({ label: set.label, scores: scoreItems(corpus, (text) => set.scan(text, set.detectors)) }));

const pct = (x: number) => `${fmt(100 * x, 1)} %`;
const cells = (f: Figures | undefined, what: "recall" | "precision") =>
  f === undefined ? "" : what === "recall" ? `${pct(f.recall)} (${f.caught}/${f.secrets})` : `${pct(f.precision)} (${f.falsePositives} fp)`;

const table = (title: string, group: "secret" | "everyday", what: readonly ("recall" | "precision")[]) => {
  const per = scored.map((s) =>
    byKey(
      s.scores.filter((x) => x.item.group === group),
      (i) => i.kind,
    ),
  );
  const kinds = [...(per[1] as Map<string, Figures>).keys()];
  const header = ["kind", "items", ...scored.flatMap((s) => what.map((w) => `${w} ${s.label}`))];
  const rows = kinds.map((kind) => [
    kind,
    String(per[1]?.get(kind)?.items ?? 0),
    ...per.flatMap((m) => what.map((w) => cells(m.get(kind), w))),
  ]);
  const all = scored.map((s) => figures(s.scores.filter((x) => x.item.group === group)));
  rows.push(["all", String(all[1]?.items ?? 0), ...all.flatMap((f) => what.map((w) => cells(f, w)))]);
  console.log(`\n${title}\n\n${textTable(header, rows)}`);
};

console.log(
  `Corpus: ${corpus.length} items (${corpus.filter((i) => i.group === "secret").length} with secrets to catch, ${corpus.filter((i) => i.group === "everyday").length} of everyday output).`,
);
table("Secrets to catch: recall (a secret counts when all of it is redacted) and precision", "secret", ["recall", "precision"]);
table("Everyday tool output: precision (false positives: redacted text that is no labelled data)", "everyday", ["precision"]);
const overall = scored.map((s) => ({ label: s.label, f: figures(s.scores) }));
console.log(
  `\nOverall: ${overall.map(({ label, f }) => `${label}: recall ${pct(f.recall)}, precision ${pct(f.precision)} (${f.falsePositives} false positives in ${f.detections} detections)`).join("; ")}`,
);

if (args.has("misses")) {
  const show = (s: ItemScore) => [
    ...s.missed.map((m) => `  missed ${s.item.id}: ${m.slice(0, 80)}`),
    ...s.falsePositives.map((f) => `  false positive ${s.item.id}: ${f.slice(0, 80)}`),
  ];
  for (const s of scored) console.log(`\n${s.label}:\n${s.scores.flatMap(show).join("\n")}`);
}
