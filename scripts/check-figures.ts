/**
 * `npm run check:figures`: fails when a generated figure page is older than the code it measured
 * (see scripts/figures.ts), naming the page and the command that writes it again.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { staleFigures } from "./figures.ts";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const pages = [
  "benchmarks/README.md",
  ...readdirSync(join(root, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`),
];
let stale = 0;
for (const page of pages) {
  const text = readFileSync(join(root, page), "utf8");
  const generated = /<!-- (?:Written|Generated) by /.test(text);
  const why =
    generated && !text.includes("<!-- figures-from: ") ? "it is generated but carries no figures-from stamp" : staleFigures(root, text);
  if (why === undefined) continue;
  stale++;
  const command = /`(npm run [\w:-]+)`/.exec(text)?.[1] ?? "the script named at its top";
  console.error(`${page}: ${why}; run \`${command}\` again and commit the page`);
}
if (stale > 0) process.exit(1);
console.log(`figure pages current (${pages.length} pages checked)`);
