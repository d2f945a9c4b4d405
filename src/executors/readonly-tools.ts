/**
 * Read-only tools for agent hooks: `Read`, `Glob` and `Grep` over one directory. Paths are
 * resolved and canonicalised (symlinks included) and must stay inside the root (I5); outputs
 * are capped, so a verifier can look around without being able to change or leak anything
 * outside what it was pointed at.
 */
import { open, readdir, readFile, realpath, stat } from "node:fs/promises";
import { isAbsolute, relative, resolve, sep } from "node:path";
import type { AgentTool } from "../agent/tool.ts";
import { compileGlob } from "../core/match/glob.ts";
import { checkLimit } from "./limits.ts";
import { knownOptions } from "../core/known-options.ts";

/** Options of `readOnlyTools`: the limits of what `Read`, `Glob` and `Grep` return. */
export interface ReadOnlyToolsOptions {
  /** Largest file `Read` returns, in bytes; default 64 KiB. */
  readonly maxFileBytes?: number;
  /** Most paths or lines `Glob` and `Grep` return; default 200. */
  readonly maxResults?: number;
}

const skipped = new Set([".git", "node_modules"]);

/** The first `max` bytes of a file of `size` bytes, without reading the rest. */
const readStart = async (file: string, max: number, size: number): Promise<Buffer> => {
  const handle = await open(file, "r");
  try {
    const buffer = Buffer.alloc(Math.floor(Math.min(max, size)));
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
};

/** Canonical path of `p` under `root`, or an error when it escapes the root. */
const inside = async (root: string, p: unknown): Promise<string> => {
  if (typeof p !== "string" || p === "") throw new Error("path must be a non-empty string");
  const real = await realpath(resolve(root, p));
  const rel = relative(root, real);
  if (rel.startsWith("..") || isAbsolute(rel)) throw new Error(`${p} is outside ${root}`);
  return real;
};

/**
 * A glob over paths under the root, read as a shell reads it: anchored at the root (`*.ts` is the
 * top level only), and a name starting with `.` is matched only when the pattern names a dot
 * segment (picomatch's `dot: false`, to the segment: once it does, dotfiles under it match too).
 * Matched with the core's linear glob: picomatch's RegExp backtracks polynomially on a pattern
 * with several stars, and here a model writes the pattern.
 */
const toolGlob = (pattern: string): ((path: string) => boolean) => {
  const match = compileGlob(pattern.includes("/") ? pattern : `./${pattern}`);
  const namesDot = pattern.split("/").some((s) => s.startsWith(".") && s !== "." && s !== "..");
  return (path) => (namesDot || !path.split(/[\\/]/).some((s) => s.startsWith("."))) && match(path);
};

async function* walk(dir: string, root: string): AsyncGenerator<string> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (skipped.has(entry.name)) continue;
    const full = `${dir}${sep}${entry.name}`;
    if (entry.isDirectory()) yield* walk(full, root);
    else if (entry.isFile()) yield relative(root, full);
  }
}

/**
 * `Read`, `Glob` and `Grep` confined to `root`.
 *
 * @example
 * agentHook({ event: "Stop", model, prompt: "Do the tests cover the change?", tools: await readOnlyTools(process.cwd()) })
 */
export const readOnlyTools = async (root: string, options: ReadOnlyToolsOptions = {}): Promise<AgentTool[]> => {
  knownOptions("readOnlyTools", options, { maxFileBytes: true, maxResults: true });
  checkLimit("readOnlyTools", "maxFileBytes", options.maxFileBytes, "bytes");
  checkLimit("readOnlyTools", "maxResults", options.maxResults, "count");
  const base = await realpath(root);
  const maxBytes = options.maxFileBytes ?? 64 * 1024;
  const maxResults = options.maxResults ?? 200;
  return [
    {
      name: "Read",
      description: `Read a text file under ${base} (first ${maxBytes} bytes).`,
      inputSchema: { type: "object", properties: { file_path: { type: "string" } }, required: ["file_path"] },
      async execute(input) {
        const file = await inside(base, input.file_path);
        const info = await stat(file);
        // Not a FIFO or a device: reading one could wait forever or never end.
        if (!info.isFile()) throw new Error(`${String(input.file_path)} is not a regular file`);
        const text = (await readStart(file, maxBytes, info.size)).toString("utf8");
        return info.size > maxBytes ? `${text}\n[truncated: ${info.size - maxBytes} more bytes]` : text;
      },
    },
    {
      name: "Glob",
      description: `List files under ${base} matching a glob such as src/**/*.ts.`,
      inputSchema: { type: "object", properties: { pattern: { type: "string" } }, required: ["pattern"] },
      async execute(input) {
        if (typeof input.pattern !== "string" || input.pattern.length > 200)
          throw new Error("pattern must be a string of at most 200 characters");
        const match = toolGlob(input.pattern);
        const found: string[] = [];
        for await (const file of walk(base, base)) if (match(file) && found.push(file) >= maxResults) break;
        return found.join("\n");
      },
    },
    {
      name: "Grep",
      description: `Find lines containing a literal text in files under ${base} (optionally under a sub-path).`,
      inputSchema: { type: "object", properties: { text: { type: "string" }, path: { type: "string" } }, required: ["text"] },
      async execute(input) {
        // A literal search: model-written regular expressions are a ReDoS risk (J3).
        if (typeof input.text !== "string" || input.text === "" || input.text.length > 200)
          throw new Error("text must be 1 to 200 characters");
        const dir = input.path === undefined ? base : await inside(base, input.path);
        const hits: string[] = [];
        for await (const file of walk(dir, base)) {
          const info = await stat(resolve(base, file));
          if (info.size > maxBytes * 16) continue;
          const lines = (await readFile(resolve(base, file), "utf8")).split("\n");
          for (let i = 0; i < lines.length && hits.length < maxResults; i++)
            if (lines[i]!.includes(input.text)) hits.push(`${file}:${i + 1}: ${lines[i]!.slice(0, 300)}`);
          if (hits.length >= maxResults) break;
        }
        return hits.join("\n");
      },
    },
  ];
};
