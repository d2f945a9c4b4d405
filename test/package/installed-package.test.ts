/**
 * The package as users get it: packed, installed from the tarball into new projects (ES module and
 * CommonJS, strict TypeScript without skipLibCheck, `nodenext` and `bundler` resolution, the oldest
 * TypeScript versions docs/install.md promises), every subpath imported, the README's programs
 * compiled and run, and the CLI run as Claude Code runs it, with hook modules of every kind.
 *
 * The README checked is test/fixtures/package/README.md, which tests the mechanism; CI's package
 * check sets AGENT_ONION_README=README.md to check the real one. The programs of the pages of docs/
 * are compiled and run too (AGENT_ONION_DOCS names another folder of pages).
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { isAbsolute, join } from "node:path";
import { spawn } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { asCommonJs, conventionProblem, tsSnippets, type Snippet } from "./readme-snippets.ts";
import { installProject, packTarball, root, run, tsc, writeFiles, type Ran } from "./project.ts";

const readmePath = ((p) => (isAbsolute(p) ? p : join(root, p)))(process.env.AGENT_ONION_README ?? "test/fixtures/package/README.md");
const snippets: Snippet[] = tsSnippets(readFileSync(readmePath, "utf8"), readmePath.slice(root.length + 1));
const docsDir = ((p) => (isAbsolute(p) ? p : join(root, p)))(process.env.AGENT_ONION_DOCS ?? "docs");
const docSnippets: Snippet[] = readdirSync(docsDir)
  .filter((f) => f.endsWith(".md"))
  .sort()
  .flatMap((f) => tsSnippets(readFileSync(join(docsDir, f), "utf8"), join(docsDir, f).slice(root.length + 1)));

/** The packages the docs programs import besides agent-onion and Node. */
const docsImports = (): string[] => {
  const names = new Set(
    docSnippets.flatMap((s) =>
      [...s.code.matchAll(/^import\s[^"']*["']([^"']+)["']/gm)]
        .map((m) => m[1] as string)
        .filter((m) => !m.startsWith("agent-onion") && !m.startsWith("node:") && !m.startsWith("."))
        .map((m) =>
          m
            .split("/")
            .slice(0, m.startsWith("@") ? 2 : 1)
            .join("/"),
        ),
    ),
  );
  return [...names].sort();
};
/** Those packages at the versions this repository tests with (a package that is not a devDependency fails a test below). */
const docsDependencies = (): Record<string, string> => {
  const own = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { devDependencies: Record<string, string> };
  return Object.fromEntries(docsImports().flatMap((n) => (own.devDependencies[n] ? [[n, own.devDependencies[n]]] : [])));
};

const subpaths = ["core", "agent", "middleware", "claude", "ai-sdk", "mcp", "otel", "redis", "effect", "koa"] as const;
/** One value each subpath must export, and what it must be. */
const probe: Record<(typeof subpaths)[number] | "root", string> = {
  root: "createAgentStack",
  core: "createStack",
  agent: "createAgent",
  middleware: "guards",
  claude: "fromClaudeSettings",
  "ai-sdk": "aiSdkMiddleware",
  mcp: "wrapMcpClient",
  otel: "metrics",
  redis: "RedisStore",
  effect: "effectHook",
  koa: "fromKoa",
};

/** A program that imports `names` (subpaths, "root" for the package) and prints what each exports, ES module syntax. */
const importEvery = (names: readonly (keyof typeof probe)[]): string => {
  const id = (n: string) => n.replace(/-/g, "_");
  const spec = (n: string) => (n === "root" ? "agent-onion" : `agent-onion/${n}`);
  return [
    ...names.map((n) => `import * as ${id(n)} from "${spec(n)}";`),
    ...names.map((n) => `const ${id(n)}Probe: unknown = ${id(n)}.${probe[n]};`),
    `console.log(JSON.stringify({ ${names.map((n) => `"${n}": typeof ${id(n)}Probe`).join(", ")} }));`,
    "",
  ].join("\n");
};
const allNames = ["root", ...subpaths] as const;
const expectedProbe = JSON.stringify(Object.fromEntries(allNames.map((n) => [n, "function"])));

const strict = {
  strict: true,
  exactOptionalPropertyTypes: true,
  noUncheckedIndexedAccess: true,
  skipLibCheck: false,
  target: "es2022",
  types: ["node"],
  outDir: "out",
  rootDir: ".",
};

let dir = "";
/** A project with agent-onion alone: none of the optional peers installed. */
let bare = "";
const at = (...parts: string[]) => join(dir, ...parts);
const ok = (r: Ran, what: string) =>
  expect({ what, code: r.code, stderr: r.stderr, stdout: r.code === 0 ? "" : r.stdout }).toEqual({ what, code: 0, stderr: "", stdout: "" });

beforeAll(() => {
  const packDir = mkdtempSync(join(tmpdir(), "agent-onion-pack-"));
  const tarball = packTarball(packDir);
  dir = installProject({
    ...docsDependencies(),
    "agent-onion": tarball,
    "@types/node": "^20.19.0",
    "@opentelemetry/api": "^1.9.0",
    ioredis: "^5.4.0",
    tsx: "^4.20.0",
    "typescript-5.0": "npm:typescript@~5.0.4",
    "typescript-5.7": "npm:typescript@~5.7.3",
    "typescript-5.8": "npm:typescript@~5.8.3",
  });
  bare = installProject({ "agent-onion": tarball, "@types/node": "^20.19.0" });
  rmSync(packDir, { recursive: true, force: true });
  const withoutPeers = allNames.filter((n) => n !== "otel" && n !== "redis");
  writeFiles(bare, {
    "package.json": { name: "bare", private: true, type: "module", dependencies: { "agent-onion": tarball, "@types/node": "^20.19.0" } },
    "tsconfig.json": { compilerOptions: { ...strict, module: "nodenext", moduleResolution: "nodenext" }, include: ["subpaths.ts"] },
    "subpaths.ts": importEvery(withoutPeers),
  });
  const readme = (transform: (code: string) => string) => Object.fromEntries(snippets.map((s) => [`${s.name}.ts`, transform(s.code)]));
  const project = (name: string, type: string, compilerOptions: object, files: Record<string, string>) =>
    Object.fromEntries([
      [`${name}/package.json`, { type }],
      [`${name}/tsconfig.json`, { compilerOptions, include: Object.keys(files) }],
      ...Object.entries(files).map(([f, c]) => [`${name}/${f}`, c]),
    ]);
  writeFiles(dir, {
    ...project("esm", "module", { ...strict, module: "nodenext", moduleResolution: "nodenext" }, { "subpaths.ts": importEvery(allNames) }),
    ...project("bundler", "module", { ...strict, module: "esnext", moduleResolution: "bundler" }, { "subpaths.ts": importEvery(allNames) }),
    ...project(
      "readme-esm",
      "module",
      { ...strict, module: "nodenext", moduleResolution: "nodenext" },
      readme((c) => c),
    ),
    ...project(
      "readme-bundler",
      "module",
      { ...strict, module: "esnext", moduleResolution: "bundler" },
      readme((c) => c),
    ),
    ...project("readme-cjs", "commonjs", { ...strict, module: "nodenext", moduleResolution: "nodenext" }, readme(asCommonJs)),
    ...project(
      "docs",
      "module",
      { ...strict, module: "nodenext", moduleResolution: "nodenext" },
      Object.fromEntries(docSnippets.map((s) => [`${s.name}.ts`, s.code])),
    ),
    ...project(
      "cjs",
      "commonjs",
      { ...strict, module: "nodenext", moduleResolution: "nodenext" },
      {
        "subpaths.ts": importEvery(allNames),
        "required.cjs": `${allNames.map((n) => `const ${n.replace(/-/g, "_")} = require("${n === "root" ? "agent-onion" : `agent-onion/${n}`}");`).join("\n")}\nconsole.log(JSON.stringify({ ${allNames.map((n) => `"${n}": typeof ${n.replace(/-/g, "_")}.${probe[n]}`).join(", ")} }));\n`,
      },
    ),
    ...project(
      "legacy",
      "commonjs",
      { ...strict, module: "commonjs", moduleResolution: "node10", esModuleInterop: true },
      { "subpaths.ts": importEvery(allNames) },
    ),
    ...project(
      "ts-5.0",
      "module",
      { ...strict, module: "nodenext", moduleResolution: "nodenext" },
      { "subpaths.ts": importEvery(allNames.filter((n) => n !== "claude" && n !== "effect")) },
    ),
    ...project(
      "ts-5.7",
      "module",
      { ...strict, module: "nodenext", moduleResolution: "nodenext" },
      { "subpaths.ts": importEvery(allNames) },
    ),
    ...project(
      "ts-5.8",
      "commonjs",
      { ...strict, module: "nodenext", moduleResolution: "nodenext" },
      { "subpaths.ts": importEvery(allNames) },
    ),
  });
}, 300_000);

// The SDKs the docs programs import make the project large: removing it takes a while on a busy machine.
afterAll(() => {
  for (const d of [dir, bare]) if (d) rmSync(d, { recursive: true, force: true });
}, 300_000);

describe("the installed package in strict TypeScript projects", () => {
  const projects = [
    ["an ES module project with nodenext resolution", "esm", undefined],
    ["an ES module project with bundler resolution", "bundler", undefined],
    ["a CommonJS project with nodenext resolution (TypeScript compiles imports to require)", "cjs", undefined],
    ["a CommonJS project with the legacy node10 resolution", "legacy", undefined],
    ["TypeScript 5.0, for every subpath but claude and effect (whose types are Effect's)", "ts-5.0", "typescript-5.0"],
    ["TypeScript 5.7, for every subpath", "ts-5.7", "typescript-5.7"],
    ["TypeScript 5.8 in a CommonJS project, the first that lets require() load an ES module", "ts-5.8", "typescript-5.8"],
  ] as const;
  const compiled = new Map<string, Ran>();
  beforeAll(async () => {
    // Two compilations at a time (CI machines have two cores); each project's test reads its own result.
    const pending = [...projects];
    const next = async (): Promise<void> => {
      for (let p = pending.shift(); p; p = pending.shift()) compiled.set(p[1], await tsc(dir, join(p[1], "tsconfig.json"), p[2]));
    };
    await Promise.all([next(), next()]);
  }, 900_000);

  it.each(projects)("type-checks and runs in %s", async (_what, project) => {
    ok(compiled.get(project)!, `tsc ${project}`);
    const ran = await run(process.execPath, [join(project, "out", "subpaths.js")], dir);
    expect(ran.stderr).toBe("");
    const names = project === "ts-5.0" ? allNames.filter((n) => n !== "claude" && n !== "effect") : allNames;
    expect(JSON.parse(ran.stdout)).toEqual(Object.fromEntries(names.map((n) => [n, "function"])));
  });

  it("type-checks and runs without the optional peers installed, for every subpath that does not need one", async () => {
    ok(await tsc(bare, "tsconfig.json"), "tsc without peers");
    const ran = await run(process.execPath, [join("out", "subpaths.js")], bare);
    expect(ran.stderr).toBe("");
    expect(JSON.parse(ran.stdout)).toEqual(
      Object.fromEntries(allNames.filter((n) => n !== "otel" && n !== "redis").map((n) => [n, "function"])),
    );
    // The subpath of an optional peer says which package it needs.
    const otel = await run(process.execPath, ["--input-type=module", "-e", 'await import("agent-onion/otel")'], bare);
    expect(otel.stderr).toMatch(/Cannot find package '@opentelemetry\/api'/);
  }, 300_000);

  it("loads every subpath with require() from plain CommonJS, one engine shared by all", async () => {
    const ran = await run(process.execPath, [at("cjs", "required.cjs")], dir);
    expect([ran.stderr, ran.stdout.trim()]).toEqual(["", expectedProbe]);
    const same = await run(
      process.execPath,
      [
        "-e",
        'console.log(require("agent-onion/core").Continue === require("agent-onion").Continue, require("agent-onion/claude").fromClaudeSettings === require("agent-onion/claude").fromClaudeSettings)',
      ],
      at("cjs"),
    );
    expect(same.stdout.trim()).toBe("true true");
  });

  it("shares one engine with the parts it loads on first use under tsx, which compiles what require() loads", async () => {
    writeFiles(dir, {
      "esm/one-engine.ts": [
        'import { Detectors, RegistrationError, toolPolicy } from "agent-onion";',
        'import * as middleware from "agent-onion/middleware";',
        "let error: unknown;",
        "try {",
        '  toolPolicy({ allow: ["Bash(echo *"] });',
        "} catch (e) {",
        "  error = e;",
        "}",
        "console.log(Detectors.email === middleware.Detectors.email, error instanceof RegistrationError);",
        "",
      ].join("\n"),
    });
    const ran = await run(process.execPath, ["--import", "tsx", "one-engine.ts"], at("esm"));
    expect([ran.stderr, ran.stdout.trim()]).toEqual(["", "true true"]);
  });

  it("loads an optional peer (OpenTelemetry, ioredis) and Effect only through the subpath that needs it", async () => {
    // Resolution is observed through a module hook: every URL the process resolves.
    writeFiles(dir, {
      "esm/observe.mjs": 'import { register } from "node:module";\nregister("./observe-hooks.mjs", import.meta.url);\n',
      "esm/observe-hooks.mjs":
        "export const resolve = async (s, c, next) => { const r = await next(s, c); process.stderr.write(`resolved ${r.url}\\n`); return r; };\n",
    });
    const resolved = async (statement: string): Promise<string> =>
      (await run(process.execPath, ["--import", "./observe.mjs", "--input-type=module", "-e", statement], at("esm"))).stderr;
    const rootOnly = await resolved('await import("agent-onion")');
    expect(rootOnly).toContain("/node_modules/agent-onion/dist/index.js");
    for (const heavy of ["/node_modules/effect/", "/node_modules/@opentelemetry/", "/node_modules/ioredis/"])
      expect(rootOnly).not.toContain(heavy);
    expect(await resolved('await import("agent-onion/otel")')).toContain("/node_modules/@opentelemetry/api/");
    expect(await resolved('await import("agent-onion/claude")')).toContain("/node_modules/effect/");
  });
});

describe(`the programs of ${snippets[0]?.where.replace(/:\d+$/, "") ?? "the README"}`, () => {
  const projects = ["readme-esm", "readme-bundler", "readme-cjs"] as const;
  const compiled = new Map<string, Ran>();
  beforeAll(async () => {
    // One compilation per project; each program's test reports the errors in its own file (tsc names files from its working
    // directory: `readme-esm/readme-44.ts(3,1): error ...`).
    for (const [project, result] of await Promise.all(projects.map(async (p) => [p, await tsc(dir, join(p, "tsconfig.json"))] as const)))
      compiled.set(project, result);
  }, 120_000);

  it("follow the convention: each ```ts block is a program that imports from agent-onion", () => {
    expect(snippets.length).toBeGreaterThan(0);
    expect(snippets.map(conventionProblem).filter((p) => p !== undefined)).toEqual([]);
  });

  it.each(snippets.map((s) => [s.where, s] as const))(
    "%s type-checks and runs in an ES module, a bundler and a CommonJS project, printing what the page shows",
    async (_where, snippet) => {
      for (const project of projects) {
        const errors = (compiled.get(project)?.stdout ?? "").split("\n").filter((l) => l.startsWith(`${project}/${snippet.name}.ts(`));
        expect({ project, errors }).toEqual({ project, errors: [] });
        const ran = await run(process.execPath, [join(project, "out", `${snippet.name}.js`)], dir, "", 30_000);
        expect({ project, code: ran.code, stderr: ran.stderr }).toEqual({ project, code: 0, stderr: "" });
        // What the page shows the program prints is part of what it promises.
        if (snippet.output !== undefined)
          expect({ project, stdout: ran.stdout.trimEnd() }).toEqual({ project, stdout: snippet.output.trimEnd() });
      }
    },
    120_000,
  );
});

/** A free TCP port on 127.0.0.1. */
const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer().once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

describe("the programs of the pages of docs/", () => {
  let compiled: Ran | undefined;
  let redisUrl: string | undefined;
  let redis: ReturnType<typeof spawn> | undefined;
  const hasRedis =
    existsSync("/usr/bin/redis-server") || (process.env.PATH ?? "").split(":").some((d) => existsSync(join(d, "redis-server")));
  beforeAll(async () => {
    if (hasRedis && docSnippets.some((s) => s.needs === "redis")) {
      const port = await freePort();
      redis = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], {
        stdio: "ignore",
      });
      redisUrl = `redis://127.0.0.1:${port}`;
    }
    // One compilation for every page; each program's test reports the errors in its own file.
    compiled = await tsc(dir, join("docs", "tsconfig.json"));
  }, 300_000);
  afterAll(() => {
    redis?.kill("SIGTERM");
  });

  it("import only agent-onion, Node and packages this repository tests with (its devDependencies)", () => {
    expect(docsImports().filter((n) => !(n in docsDependencies()))).toEqual([]);
  });

  it("type-check with nothing left over outside the programs but in other packages' declarations", () => {
    // Under these settings (exactOptionalPropertyTypes, no skipLibCheck) the declarations of LangChain, the AI SDK
    // and the OpenAI Agents SDK have errors of their own; those of agent-onion must have none.
    expect(docSnippets.length).toBeGreaterThan(0);
    const outside = (compiled?.stdout ?? "")
      .split("\n")
      .filter((l) => /^\S/.test(l) && !docSnippets.some((s) => l.startsWith(`docs/${s.name}.ts(`)))
      .filter((l) => !/^(\.\.\/)?node_modules\//.test(l) || /^(\.\.\/)?node_modules\/agent-onion\//.test(l));
    expect(outside).toEqual([]);
  });

  it.each(
    docSnippets.map(
      (s) => [s.where, s.needs === "nothing" ? "runs" : s.needs === "redis" ? "runs with Redis" : "only compiles", s] as const,
    ),
  )(
    "%s type-checks and %s",
    async (_where, _runs, snippet) => {
      expect(conventionProblem(snippet)).toBeUndefined();
      const errors = (compiled?.stdout ?? "").split("\n").filter((l) => l.startsWith(`docs/${snippet.name}.ts(`));
      expect(errors).toEqual([]);
      if (snippet.needs === "compile-only") return;
      if (snippet.needs === "redis" && !redisUrl) {
        console.log(`${snippet.where}: not run, redis-server is not installed`);
        return;
      }
      const env = redisUrl ? { REDIS_URL: redisUrl } : {};
      const ran = await run(process.execPath, [join("docs", "out", `${snippet.name}.js`)], dir, "", 30_000, env);
      expect({ code: ran.code, stderr: ran.stderr }).toEqual({ code: 0, stderr: "" });
      if (snippet.output !== undefined) expect(ran.stdout.trimEnd()).toBe(snippet.output.trimEnd());
    },
    60_000,
  );
});

/**
 * A preload that writes, at exit, the files the process compiled: every script V8 parsed, as the
 * inspector reports it, so files loaded by `require()` count as well as imported ones (module
 * hooks see only the imported ones).
 */
const loadedFiles =
  'const { Session } = require("node:inspector");\nconst session = new Session();\nsession.connect();\nconst urls = [];\nsession.on("Debugger.scriptParsed", (m) => urls.push(m.params.url));\nsession.post("Debugger.enable");\nprocess.on("exit", () => require("node:fs").writeSync(2, `loaded ${urls.filter((u) => /^(file:|\\/)/.test(u)).join(" ")}\\n`));\n';
/** Every file the process compiled (see loadedFiles). */
const loadedBy = (ran: Ran): string[] => (/^loaded (.*)$/m.exec(ran.stderr)?.[1] ?? "").split(" ").filter((f) => f !== "");
/** The package's files the process compiled, as paths in the package (`dist/index.js`). */
const packageFilesLoadedBy = (ran: Ran): string[] =>
  loadedBy(ran)
    .filter((u) => u.includes("/node_modules/agent-onion/"))
    .map((u) => u.replace(/^.*\/node_modules\/agent-onion\//, ""));

describe("what a module importing the root entry loads", () => {
  const program = (use: string) =>
    `import { createAgentStack, Continue${use ? `, withMiddleware, ${use}` : ""} } from "agent-onion";\n` +
    `const base = createAgentStack().use("toolCall", { name: "guard", match: "Bash", before: () => Continue });\n` +
    `const stack = ${use ? `withMiddleware(base, ${use}())` : "base"};\n` +
    'const outcome = await stack.run("toolCall", { id: "t1", name: "Bash", input: { command: "ls" } }, async () => ({ content: "ok" }));\n' +
    "console.log(outcome._tag);\n";
  const loads = async (use: string): Promise<string[]> => {
    writeFiles(dir, { "esm/loaded.cjs": loadedFiles, "esm/uses.mjs": program(use) });
    const ran = await run(process.execPath, ["--require", "./loaded.cjs", "uses.mjs"], at("esm"));
    expect({ code: ran.code, stdout: ran.stdout.trim() }).toEqual({ code: 0, stdout: "Completed" });
    return packageFilesLoadedBy(ran);
  };

  it("does not load the middleware, the adapters, the shell analysis, approvals or the agent loop when it uses none of them", async () => {
    const files = await loads("");
    expect(files).toEqual(expect.arrayContaining(["dist/index.js", "dist/chunks/core.js", "dist/chunks/agent.js"]));
    expect(files.filter((f) => /middleware|lazy|ai-sdk|mcp|koa|core-/.test(f))).toEqual([]);
  });

  it("loads the agent loop with the first agent, and not the shell analysis or the approvals with it", async () => {
    writeFiles(dir, {
      "esm/loaded.cjs": loadedFiles,
      "esm/agent.mjs":
        'import { createAgent, createAgentStack, createScriptedModel } from "agent-onion";\n' +
        'const agent = createAgent({ model: createScriptedModel({ turns: ["Done."] }), tools: [], stack: createAgentStack() });\n' +
        'const session = await agent.session({ source: "startup" });\n' +
        'const turn = await session.prompt("Hello");\n' +
        'await session.close("prompt_input_exit");\n' +
        "console.log(turn.text);\n",
    });
    const ran = await run(process.execPath, ["--require", "./loaded.cjs", "agent.mjs"], at("esm"));
    expect({ code: ran.code, stdout: ran.stdout.trim(), stderr: ran.code === 0 ? "" : ran.stderr }).toEqual({
      code: 0,
      stdout: "Done.",
      stderr: "",
    });
    const files = packageFilesLoadedBy(ran);
    expect(files).toEqual(expect.arrayContaining(["dist/lazy/agent/agent.js", "dist/chunks/agent-lazy.js"]));
    expect(files.filter((f) => /core-lazy|core-approvals|middleware/.test(f))).toEqual([]);
  });

  it("loads one middleware's own code on its first call, not the others'", async () => {
    const files = await loads("retry");
    expect(files).toContain("dist/lazy/middleware/retry.js");
    expect(files.filter((f) => /redaction|detectors|guards|audit|tool-policy/.test(f))).toEqual([]);
  });
});

describe("the installed CLI, as Claude Code runs it", () => {
  const kinds = ["js", "mjs", "cjs", "ts", "mts", "cts"] as const;
  const esm = (ext: string, helper: string) =>
    `import { createAgentStack, Reject } from "agent-onion";\nimport { reason } from "./reason.${helper}";\nexport default createAgentStack().use("toolCall", { name: "no-rm", match: "Bash(rm *)", before: () => Reject(reason + " (${ext})") });\n`;
  const cjs = (ext: string, helper: string) =>
    `const { createAgentStack, Reject } = require("agent-onion");\nconst { reason } = require("./reason.${helper}");\nmodule.exports = createAgentStack().use("toolCall", { name: "no-rm", match: "Bash(rm *)", before: () => Reject(reason + " (${ext})") });\n`;
  const hookProject = (type: "module" | "commonjs") => ({
    "package.json": { type },
    "reason.js": type === "module" ? 'export const reason = "no rm";\n' : 'exports.reason = "no rm";\n',
    "reason.mjs": 'export const reason = "no rm";\n',
    "reason.cjs": 'exports.reason = "no rm";\n',
    "reason.ts": 'export const reason: string = "no rm";\n',
    "reason.mts": 'export const reason: string = "no rm";\n',
    "reason.cts": 'export const reason: string = "no rm";\n',
    "guard.js": type === "module" ? esm("js", "js") : cjs("js", "js"),
    "guard.mjs": esm("mjs", "mjs"),
    "guard.cjs": cjs("cjs", "cjs"),
    "guard.ts": esm("ts", "js"),
    "guard.mts": esm("mts", "mjs"),
    "guard.cts": esm("cts", "cjs"),
  });
  const event = JSON.stringify({
    hook_event_name: "PreToolUse",
    session_id: "s1",
    cwd: "/tmp",
    tool_name: "Bash",
    tool_input: { command: "rm -rf build" },
    tool_use_id: "t1",
  });
  const bin = () => at("node_modules", ".bin", "agent-onion");

  beforeAll(() => {
    writeFiles(
      dir,
      Object.fromEntries([
        ...Object.entries(hookProject("module")).map(([f, c]) => [`hooks-esm/${f}`, c]),
        ...Object.entries(hookProject("commonjs")).map(([f, c]) => [`hooks-cjs/${f}`, c]),
        ["loaded.cjs", loadedFiles],
        // The built-in modules the process loaded, written at exit without opening a stream.
        [
          "builtins.mjs",
          'process.on("exit", () => process.getBuiltinModule("node:fs").writeSync(2, `builtins ${process.moduleLoadList.filter((m) => m.startsWith("NativeModule ")).map((m) => m.slice(13)).join(" ")}\\n`));\n',
        ],
      ]),
    );
  });

  it.each(["module", "commonjs"].flatMap((type) => kinds.map((kind) => [type, kind] as const)))(
    "runs a %s project's .%s module",
    async (type, kind) => {
      const project = type === "module" ? "hooks-esm" : "hooks-cjs";
      const ran = await run(bin(), ["claude-hook", `guard.${kind}`], at(project), event);
      expect({ code: ran.code, stderr: ran.stderr }).toEqual({ code: 0, stderr: "" });
      expect(JSON.parse(ran.stdout)).toEqual({
        hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: `no rm (${kind})` },
      });
    },
    60_000,
  );

  it("runs a module with top-level await, and runs a module that throws while loading once, failing closed", async () => {
    writeFiles(dir, {
      "hooks-esm/awaits.js":
        'import { createAgentStack, Reject } from "agent-onion";\nconst reason = await Promise.resolve("no rm (awaited)");\nexport default createAgentStack().use("toolCall", { name: "no-rm", match: "Bash(rm *)", before: () => Reject(reason) });\n',
      "hooks-cjs/throws.js": 'require("node:fs").appendFileSync("throws.log", "ran\\n");\nthrow new Error("broken guard");\n',
    });
    const awaited = await run(bin(), ["claude-hook", "awaits.js"], at("hooks-esm"), event);
    expect({ code: awaited.code, reason: JSON.parse(awaited.stdout).hookSpecificOutput?.permissionDecisionReason }).toEqual({
      code: 0,
      reason: "no rm (awaited)",
    });
    const broken = await run(bin(), ["claude-hook", "throws.js"], at("hooks-cjs"), event);
    expect(broken.code).toBe(2);
    expect(broken.stderr).toContain("broken guard");
    expect(readFileSync(at("hooks-cjs", "throws.log"), "utf8")).toBe("ran\n");
  });

  it("answers a .js module importing the root without loading the middleware, the adapters or the shell analysis", async () => {
    writeFiles(dir, {
      "hooks-esm/plain.js":
        'import { createAgentStack, Continue } from "agent-onion";\nexport default createAgentStack().use("toolCall", { name: "guard", match: "Bash", before: () => Continue });\n',
    });
    const ran = await run(
      process.execPath,
      ["--require", "../loaded.cjs", at("node_modules", "agent-onion", "bin", "agent-onion.js"), "claude-hook", "plain.js"],
      at("hooks-esm"),
      event,
    );
    expect({ code: ran.code, stdout: ran.stdout }).toEqual({ code: 0, stdout: "" });
    const files = packageFilesLoadedBy(ran);
    expect(files).toEqual(expect.arrayContaining(["dist/cli/run.js", "dist/index.js", "dist/chunks/claude-bridge.js"]));
    expect(files.filter((f) => /middleware|lazy|ai-sdk|mcp|koa|core-|cli-/.test(f))).toEqual([]);
  });

  it("loads no TypeScript loader, Effect or OpenTelemetry for a .js module", async () => {
    const ran = await run(
      process.execPath,
      ["--require", "../loaded.cjs", at("node_modules", "agent-onion", "bin", "agent-onion.js"), "claude-hook", "guard.js"],
      at("hooks-esm"),
      event,
    );
    expect(ran.code).toBe(0);
    const files = loadedBy(ran).join(" ");
    expect(files).toContain("/hooks-esm/guard.js");
    for (const heavy of ["/node_modules/tsx/", "/node_modules/effect/", "/node_modules/@opentelemetry/"])
      expect(files).not.toContain(heavy);
  });

  it("answers without loading Node's crypto, networking, streams, tty or child processes", async () => {
    // What an event costs at start-up: each of these is a few ms that claude-hook pays on every tool call.
    for (const command of ["rm -rf build", "npm test"]) {
      const ran = await run(
        process.execPath,
        ["--import", "../builtins.mjs", at("node_modules", "agent-onion", "bin", "agent-onion.js"), "claude-hook", "guard.js"],
        at("hooks-esm"),
        JSON.stringify({ ...JSON.parse(event), tool_input: { command } }),
      );
      expect(ran.code).toBe(0);
      const loaded = (/^builtins (.*)$/m.exec(ran.stderr)?.[1] ?? "").split(" ");
      expect(loaded).toContain("fs");
      for (const heavy of ["crypto", "net", "stream", "tty", "child_process", "http", "zlib"]) expect(loaded).not.toContain(heavy);
    }
  });

  it("tries Claude Code settings and explains a module (the commands that load the settings loader)", async () => {
    const deny = {
      hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: "no network" },
    };
    writeFiles(dir, {
      "hooks-esm/settings.json": {
        hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: `echo '${JSON.stringify(deny)}'` }] }] },
      },
    });
    const tried = await run(
      bin(),
      ["try", "--settings", "settings.json", "--event", "PreToolUse", "--json"],
      at("hooks-esm"),
      '{"tool_input":{"command":"curl example.com"}}',
    );
    expect(tried.code).toBe(2);
    expect(JSON.parse(tried.stdout)).toMatchObject({ decision: "deny", reason: "no network" });
    const explained = await run(
      bin(),
      ["explain", "--module", "guard.js", "--event", "PreToolUse", "--input", JSON.stringify({ tool_input: { command: "rm -rf build" } })],
      at("hooks-esm"),
    );
    expect([explained.code, explained.stderr]).toEqual([0, ""]);
    expect(explained.stdout).toMatch(/1\. +no-rm +\[priority/);
  }, 60_000);

  it("prints its version, and serves a CommonJS TypeScript module over HTTP", async () => {
    const version = await run(bin(), ["--version"], dir);
    expect(version.stdout).toBe(`${(JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string }).version}\n`);
    const server = spawn(bin(), ["serve", "--port", "0", "guard.ts"], { cwd: at("hooks-cjs"), stdio: ["ignore", "pipe", "pipe"] });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = "";
        server.stdout.on("data", (c: Buffer) => {
          out += c.toString();
          const match = /listening on (\S+)/.exec(out);
          if (match) resolve(match[1] as string);
        });
        server.once("exit", (code) => reject(new Error(`serve exited ${code}`)));
      });
      const body = await new Promise<string>((resolve, reject) => {
        const req = request(url, { method: "POST", headers: { "content-type": "application/json" } }, (res) => {
          let text = "";
          res.on("data", (c: Buffer) => (text += c.toString()));
          res.on("end", () => resolve(text));
        });
        req.on("error", reject);
        req.end(event);
      });
      expect(JSON.parse(body)).toEqual({
        hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: "no rm (ts)" },
      });
    } finally {
      const exited = new Promise((r) => server.once("exit", r));
      server.kill("SIGTERM");
      expect(await exited).toBe(0);
    }
  }, 60_000);
});
