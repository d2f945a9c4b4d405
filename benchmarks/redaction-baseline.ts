/**
 * The detectors as they were before the rule-table detectors, loaded from git, so that the
 * redaction benchmark and the corpus report measure both in one run. The "before" commit is the
 * parent of the commit that added `src/middleware/secret-rules.ts`, unless `--before <ref>` names
 * another.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { Detector, scan as scanNow } from "../src/middleware/detectors.ts";

const root = fileURLToPath(new URL("..", import.meta.url));
const git = (...args: string[]): string => execFileSync("git", args, { cwd: root, encoding: "utf8" }).trim();

/**
 * The commit before the rule-table detectors (or `ref` when given), as a full hash.
 *
 * @example
 * beforeRef() // "69a6807..."
 */
export const beforeRef = (ref?: string): string => {
  if (ref !== undefined) return git("rev-parse", "--verify", `${ref}^{commit}`);
  const added = git("log", "--diff-filter=A", "--format=%H", "--", "src/middleware/secret-rules.ts").split("\n").filter(Boolean).at(-1);
  if (added === undefined)
    throw new Error(
      "redaction baseline: no commit adds src/middleware/secret-rules.ts in this checkout's history (a shallow clone?); pass --before <ref>",
    );
  return git("rev-parse", `${added}^`);
};

/** A detector set and its scan. */
export interface DetectorSet {
  readonly label: string;
  readonly detectors: readonly Detector[];
  readonly scan: typeof scanNow;
}

/**
 * The default detectors of `ref`, from its `detectors.ts` and the files it imports (`visible-text.ts`,
 * and since the rule table `secret-rules.ts`, `secret-detectors.ts` and `token-runs.ts`).
 *
 * @example
 * const before = await loadDetectorsAt(beforeRef())
 */
export const loadDetectorsAt = async (ref: string): Promise<DetectorSet> => {
  const dir = mkdtempSync(join(tmpdir(), "agent-onion-redaction-before-"));
  // The detectors' own files: two before the rule table, more since (a file a ref lacks is skipped).
  const present = new Set(git("ls-tree", "--name-only", `${ref}:src/middleware`).split("\n"));
  const files = [
    "detectors.ts",
    "visible-text.ts",
    "secret-rules.ts",
    "secret-detectors.ts",
    "token-runs.ts",
    "char-windows.ts",
    "assignment-reach.ts",
  ];
  for (const file of files) if (present.has(file)) writeFileSync(join(dir, file), git("show", `${ref}:src/middleware/${file}`) + "\n");
  const module = (await import(pathToFileURL(join(dir, "detectors.ts")).href)) as {
    defaultDetectors: () => readonly Detector[];
    scan: typeof scanNow;
  };
  return { label: `before (${ref.slice(0, 7)})`, detectors: module.defaultDetectors(), scan: module.scan };
};
