/**
 * The inputs of the redaction benchmarks: typical tool output (this repository's own source
 * code, its package-lock.json, synthetic service logs, a mix of the three) and the helpers that
 * size them. Shared by redaction.bench.ts and redaction-passes.ts, so both time the same text.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));

/** Every .ts file under `dir`, concatenated. */
const sourceText = (dir: string): string =>
  readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith(".ts"))
    .map((e) => readFileSync(join(e.parentPath, e.name), "utf8"))
    .join("\n");

/**
 * `text` repeated and cut to `size` characters, as a flat string (as a tool's output arrives).
 *
 * @example
 * sized("ab", 5) // "ababa"
 */
export const sized = (text: string, size: number): string =>
  Buffer.from(text.repeat(Math.ceil(size / text.length)).slice(0, size)).toString();

let seed = 7;
const random = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0), seed / 2 ** 32);

/**
 * `n` characters drawn from `alphabet` by a seeded generator (the same sequence in every run).
 *
 * @example
 * pick("01", 8).length // 8
 */
export const pick = (alphabet: string, n: number): string =>
  Array.from({ length: n }, () => alphabet[Math.floor(random() * alphabet.length)]).join("");

const logs = Array.from(
  { length: 400 },
  (_, i) =>
    `2024-05-20T10:${String(i % 60).padStart(2, "0")}:12.${String(i).padStart(3, "0")}Z ${["INFO", "WARN", "DEBUG"][i % 3]} [worker-${i % 8}] request_id=req_${pick("0123456789ABCDEFGHJKMNPQRSTVWXYZ", 26)} GET /api/v1/orders/${pick("0123456789abcdef", 8)}-${pick("0123456789abcdef", 4)}-4${pick("0123456789abcdef", 3)}-a${pick("0123456789abcdef", 3)}-${pick("0123456789abcdef", 12)} status=200 duration_ms=${i % 97} bytes=${1000 + i * 7}`,
).join("\n");

/**
 * Typical tool output, by name: `code`, `json`, `logs` and `mixed` (60,000 characters of each).
 *
 * @example
 * Object.keys(typical) // ["code", "json", "logs", "mixed"]
 */
export const typical: Record<string, string> = {
  code: sourceText(join(root, "src")),
  json: readFileSync(join(root, "package-lock.json"), "utf8"),
  logs,
};
typical.mixed = [typical.code?.slice(0, 60_000), typical.json?.slice(0, 60_000), logs.slice(0, 60_000)].join("\n");
