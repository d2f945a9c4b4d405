#!/usr/bin/env node
/**
 * Checks the messages of the commits made since the commit convention is enforced (see
 * CONTRIBUTING.md): a subject of at most 72 characters that starts with a verb in the imperative
 * ("Parse", not "Parsed", "Parses" or "core: parse"), no other commit's hash in it, no trailing
 * period, and a blank line between subject and body. Merge commits are not checked: their
 * subjects are written by the tool that makes them.
 *
 * Usage: node scripts/check-commits.mjs [revision-range]
 *   With no range, checks BASE..HEAD, where BASE is `$CHECK_COMMITS_BASE` or the commit below.
 *   Exit code 1 and one line per problem when a message breaks the convention.
 */
import { execFileSync } from "node:child_process";
import { pathToFileURL } from "node:url";

/**
 * The first commit on main from which the convention is enforced; everything it contains was
 * written before and is not checked.
 */
const ENFORCED_AFTER = "d6782d3542cf72d30edda56bd48f111b3526c0fe";

const git = (...args) => execFileSync("git", args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();

/** Words ending like a past tense, a participle or a third person that are imperatives all the same. */
const imperativeAnyway = new Set([
  "bleed",
  "breed",
  "embed",
  "exceed",
  "feed",
  "heed",
  "need",
  "proceed",
  "seed",
  "shed",
  "shred",
  "speed",
  "succeed",
  "bring",
  "ping",
  "ring",
  "sing",
  "sting",
  "string",
  "swing",
  "wring",
]);

/** Why a subject's first word is not a verb in the imperative, or undefined when it may be one. */
export const notImperative = (subject) => {
  const first = subject.split(/\s/)[0] ?? "";
  if (/^(fixup|squash|amend)!/.test(first) || /^wip\b/i.test(first)) return `starts with "${first}": squash it before pushing`;
  if (!/^[A-Z][a-z]*(-[a-z]+)*$/.test(first))
    return `starts with "${first}", not a capitalised verb in the imperative ("Parse", not "core: parse")`;
  const word = first.toLowerCase();
  if (imperativeAnyway.has(word)) return undefined;
  if (/ed$/.test(word)) return `starts with "${first}": use the imperative ("Add", not "Added")`;
  if (/ing$/.test(word)) return `starts with "${first}": use the imperative ("Add", not "Adding")`;
  if (/[^su]s$/.test(word) && !/(is|as|ics)$/.test(word)) return `starts with "${first}": use the imperative ("Add", not "Adds")`;
  return undefined;
};

/** The problems of one commit message (subject, blank line, body), each as a sentence. */
export const problemsOf = (message) => {
  const lines = message.replace(/\n+$/, "").split("\n");
  const subject = lines[0] ?? "";
  const problems = [];
  if (subject.trim() === "") return ["the subject is empty"];
  if (subject.length > 72) problems.push(`the subject is ${subject.length} characters (at most 72)`);
  const why = notImperative(subject);
  if (why !== undefined) problems.push(`the subject ${why}`);
  for (const m of subject.matchAll(/\b[0-9a-f]{7,40}\b/g)) {
    if (/[a-f]/.test(m[0]) && /\d/.test(m[0])) problems.push(`the subject cites a commit hash (${m[0]}): say what the change does instead`);
  }
  if (/\.$/.test(subject)) problems.push("the subject ends with a period");
  if (lines.length > 1 && lines[1] !== "") problems.push("no blank line between subject and body");
  return problems;
};

const main = () => {
  const base = process.env.CHECK_COMMITS_BASE || ENFORCED_AFTER;
  let range = process.argv[2];
  if (range === undefined) {
    try {
      git("cat-file", "-e", `${base}^{commit}`);
    } catch {
      console.error(`check-commits: ${base} is not in this clone (a shallow clone?); run \`git fetch --unshallow\` or pass a range`);
      process.exit(2);
    }
    range = `${base}..HEAD`;
  }
  const log = git("log", "--no-merges", "--format=%H%x00%B%x01", range);
  const problems = [];
  let count = 0;
  for (const entry of log.split("\x01")) {
    const [hash, message = ""] = entry.replace(/^\n+/, "").split("\x00");
    if (!hash) continue;
    count++;
    const subject = message.split("\n")[0] ?? "";
    const where = `${hash.slice(0, 10)} "${subject.length > 50 ? `${subject.slice(0, 50)}…` : subject}"`;
    for (const problem of problemsOf(message)) problems.push(`${where}: ${problem}`);
  }
  if (problems.length > 0) {
    console.error(`${problems.length} problem(s) in ${count} commit message(s) (range ${range}):\n${problems.join("\n")}`);
    process.exit(1);
  }
  console.log(`${count} commit message(s) follow the convention (range ${range}).`);
};

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) main();
