/**
 * Path rules against the kernel itself: random paths over a real tree with real links (out of the
 * project, within it, named in NFD, with a backslash, dangling) are opened for writing, as given and
 * after `path.resolve` (as a tool that normalises first would), and the file the kernel created is
 * looked up. An allow of `Write(src/**)` must never let a file be created outside `src`, and a deny
 * of `Write(/<outside>/**)` must catch every path that created one there.
 */
import fc from "fast-check";
import {
  closeSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { compileAllowRules, compileDenyRules } from "../../src/middleware/tool-rules.ts";

const root = realpathSync(mkdtempSync(join(tmpdir(), "agent-onion-kernel-")));
afterAll(() => rmSync(root, { recursive: true, force: true }));
// Deep enough that no generated path climbs out of `root`: every file the kernel creates is found.
const base = join(root, "1/2/3/4/5/6/7");
const P = join(base, "proj");
const outside = join(base, "outside");
for (const dir of [`${P}/src/lib`, `${P}/docs`, outside]) mkdirSync(dir, { recursive: true });
writeFileSync(`${P}/src/a.ts`, "x");
symlinkSync(outside, `${P}/src/out`);
symlinkSync("lib", `${P}/src/inner`);
symlinkSync("../../outside", `${P}/src/rel`);
symlinkSync(outside, `${P}/src/cafe\u0301`);
symlinkSync(outside, `${P}/src/back\\slash`);
symlinkSync(`${outside}/gone`, `${P}/src/dangling`);
symlinkSync(`${P}/docs`, `${P}/src/docs-link`);

// Files that say where they are, for reads.
for (const dir of [`${P}/src`, `${P}/src/lib`, `${P}/docs`, P, base, outside]) writeFileSync(`${dir}/where.txt`, dir);

const paths = { projectDir: P, cwd: P, home: join(root, "home") };
const allow = compileAllowRules(["Write(src/**)", "Read(src/**)"], "policy", paths);
const deny = compileDenyRules([`Write(/${outside}/**)`, `Read(/${outside}/**)`], "policy", paths);

/** Every file under `dir` named `name`, by its real path (links not followed while walking). */
const findAll = (dir: string, name: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const at = join(dir, e.name);
    if (e.isDirectory()) return findAll(at, name);
    return e.name === name ? [at] : [];
  });

const segment = fc.constantFrom(
  "src",
  "lib",
  "out",
  "inner",
  "rel",
  "cafe\u0301",
  "caf\u00e9",
  "back\\slash",
  "dangling",
  "docs-link",
  "..",
  ".",
  "missing",
  "",
);
let n = 0;
/** Where the writes landed: in src, elsewhere in the project, outside it. */
const landed = { src: 0, project: 0, outside: 0 };

describe("path rules against the kernel", () => {
  it("never allow a write that lands outside src, and deny every write that lands outside the project", () => {
    fc.assert(
      fc.property(
        fc.constantFrom("src", "src", "src/out", "."),
        fc.array(segment, { maxLength: 5 }),
        fc.boolean(),
        fc.boolean(),
        (first, rest, absolute, normalise) => {
          const segments = [first, ...rest];
          const name = `f${n++}.txt`;
          const given = `./${[...segments, name].join("/")}`; // relative even when it starts with an empty segment
          const path = absolute ? `${P}/${given}` : given;
          const call = { id: "1", name: "Write", input: { file_path: path, content: "x" } };
          const allowed = allow(call) !== undefined;
          const denied = deny(call) !== undefined;
          const opened = normalise ? resolve(P, path) : path.startsWith("/") ? path : `${P}/${path}`;
          try {
            closeSync(openSync(opened, "w"));
          } catch {
            return true; // the kernel refused the path: nothing was written
          }
          const created = findAll(root, name);
          for (const file of created) unlinkSync(file);
          expect(created, `${JSON.stringify(path)} (normalised: ${normalise})`).toHaveLength(1);
          const at = created[0]!;
          landed[at.startsWith(`${P}/src/`) ? "src" : at.startsWith(`${outside}/`) ? "outside" : "project"]++;
          if (allowed) expect(at.startsWith(`${P}/src/`), `allowed ${JSON.stringify(path)} wrote ${at}`).toBe(true);
          if (at.startsWith(`${outside}/`)) expect(denied, `${JSON.stringify(path)} wrote ${at} and was not denied`).toBe(true);
          return true;
        },
      ),
      { numRuns: 1000 },
    );
    // The property is worth something only if the kernel really wrote in each place.
    expect(landed.src).toBeGreaterThan(20);
    expect(landed.outside).toBeGreaterThan(20);
    expect(landed.project).toBeGreaterThan(5);
  });

  it("never allow a read of a file outside src, and deny every read of one outside the project", () => {
    const read = { src: 0, outside: 0 };
    fc.assert(
      fc.property(
        fc.constantFrom("src", "src/out", "."),
        fc.array(segment, { maxLength: 5 }),
        fc.boolean(),
        fc.boolean(),
        (first, rest, absolute, normalise) => {
          const given = `./${[first, ...rest, "where.txt"].join("/")}`;
          const path = absolute ? `${P}/${given}` : given;
          const call = { id: "1", name: "Read", input: { file_path: path } };
          let at: string;
          try {
            at = readFileSync(normalise ? resolve(P, path) : path.startsWith("/") ? path : `${P}/${path}`, "utf8");
          } catch {
            return true; // the kernel opened nothing
          }
          if (at === `${P}/src` || at.startsWith(`${P}/src/`)) read.src++;
          if (at === outside) read.outside++;
          if (allow(call) !== undefined) expect(at.startsWith(`${P}/src`), `allowed ${JSON.stringify(path)} read ${at}`).toBe(true);
          if (at === outside) expect(deny(call), `${JSON.stringify(path)} read ${at} and was not denied`).toBeDefined();
          return true;
        },
      ),
      { numRuns: 1000 },
    );
    expect(read.src).toBeGreaterThan(20);
    expect(read.outside).toBeGreaterThan(20);
  });
});
