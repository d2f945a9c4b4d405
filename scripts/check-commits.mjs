#!/usr/bin/env node
/**
 * Checks the commit messages written since the commit convention was adopted (the commit that
 * added CONTRIBUTING.md): a subject of at most 72 characters, no other commit's hash in it, no
 * trailing period, and a blank line between subject and body.
 *
 * Usage: node scripts/check-commits.mjs [revision-range]
 */
import { execFileSync } from "node:child_process";

const git = (...args) => execFileSync("git", args, { encoding: "utf8" }).trim();

const adopted = git("log", "--diff-filter=A", "--format=%H", "--", "CONTRIBUTING.md").split("\n").filter(Boolean).pop();
const range = process.argv[2] ?? (adopted ? `${adopted}^..HEAD` : "HEAD");
const log = git("log", "--format=%H%x00%B%x01", range);
const problems = [];
let count = 0;
for (const entry of log.split("\x01")) {
  const [hash, message = ""] = entry.replace(/^\n+/, "").split("\x00");
  if (!hash) continue;
  count++;
  const lines = message.replace(/\n+$/, "").split("\n");
  const subject = lines[0] ?? "";
  const where = `${hash.slice(0, 10)} "${subject.length > 50 ? `${subject.slice(0, 50)}…` : subject}"`;
  if (subject.trim() === "") problems.push(`${where}: empty subject`);
  if (subject.length > 72) problems.push(`${where}: subject is ${subject.length} characters (at most 72)`);
  if (/\b[0-9a-f]{7,40}\b/.test(subject) && /[a-f]/.test(subject.match(/\b[0-9a-f]{7,40}\b/)[0])) problems.push(`${where}: subject cites a commit hash`);
  if (/\.$/.test(subject)) problems.push(`${where}: subject ends with a period`);
  if (lines.length > 1 && lines[1] !== "") problems.push(`${where}: no blank line between subject and body`);
}
if (problems.length > 0) {
  console.error(`${problems.length} problem(s) in ${count} commit message(s):\n${problems.join("\n")}`);
  process.exit(1);
}
console.log(`${count} commit message(s) follow the convention (range ${range}).`);
