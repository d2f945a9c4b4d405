/**
 * Figure pages (benchmarks/README.md, docs/reliability.md) are written by scripts that measure
 * the code. Each page carries a stamp naming the sources it measured and a digest of them, so a
 * check can tell when the code has changed since the figures were made: a figure page older than
 * its code fails CI rather than showing numbers of code that no longer exists.
 */
import { createHash } from "node:crypto";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";

const stampPattern = /<!-- figures-from: (.+?) sha256:([0-9a-f]{16}) -->/;

/**
 * A digest of the tracked files under `paths` (files or directories, relative to `root`), in path
 * order, contents as they are on disk.
 *
 * @example
 * sourceDigest(process.cwd(), ["src/core"]) // "3f1c0a9b27d4e8aa"
 */
export const sourceDigest = (root: string, paths: readonly string[]): string => {
  const files = execFileSync("git", ["ls-files", "-z", "--", ...paths], { cwd: root, encoding: "utf8" })
    .split("\0")
    .filter(Boolean)
    .sort();
  if (files.length === 0) throw new Error(`figures: no tracked files under ${paths.join(", ")}`);
  const hash = createHash("sha256");
  for (const file of files)
    hash
      .update(`${file}\0`)
      .update(readFileSync(join(root, file)))
      .update("\0");
  return hash.digest("hex").slice(0, 16);
};

/**
 * The stamp a generated page carries: which sources its figures measured, and their digest.
 *
 * @example
 * figuresStamp(process.cwd(), ["src/core", "benchmarks/cases.ts"]) // "<!-- figures-from: src/core benchmarks/cases.ts sha256:... -->"
 */
export const figuresStamp = (root: string, paths: readonly string[]): string =>
  `<!-- figures-from: ${paths.join(" ")} sha256:${sourceDigest(root, paths)} -->`;

/**
 * Why the page `text` is stale, or undefined when its stamp matches the sources (or it has none).
 *
 * @example
 * staleFigures(process.cwd(), "<!-- figures-from: src/core sha256:0000000000000000 -->") // "its figures measured src/core as it was ..."
 */
export const staleFigures = (root: string, text: string): string | undefined => {
  const stamp = stampPattern.exec(text);
  if (!stamp) return undefined;
  const paths = stamp[1]!.split(" ");
  const now = sourceDigest(root, paths);
  return now === stamp[2]
    ? undefined
    : `its figures measured ${paths.join(", ")} as it was (sha256:${stamp[2]}), and that code has changed since (sha256:${now})`;
};
