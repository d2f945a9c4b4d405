/**
 * The README's TypeScript snippets, as programs a user can copy. The convention: every ```ts (or
 * ```typescript) block of README.md is a complete program that imports from `agent-onion` (or one
 * of its subpaths) and runs to completion; a block whose info string says `fragment` (```ts
 * fragment) is shown to the reader and skipped here. Blocks are read with a Markdown parser
 * (marked), so fences inside lists, longer fences and `~~~` fences are found as GitHub shows them.
 */
import { marked } from "marked";
import ts from "typescript";

/** One ```ts block of a Markdown file. */
export interface Snippet {
  /** `README.md:28`: where the block's opening fence is. */
  readonly where: string;
  /** A file name for it: `readme-28`. */
  readonly name: string;
  readonly code: string;
}

const typeScriptLanguages = new Set(["ts", "typescript"]);

/**
 * The TypeScript programs of a Markdown text: every ```ts block but fragments.
 *
 * @example
 * tsSnippets("```ts\nimport { Reject } from \"agent-onion\";\n```\n", "README.md") // [{ where: "README.md:1", name: "readme-1", code: "..." }]
 */
export const tsSnippets = (markdown: string, file: string): Snippet[] => {
  const lines = markdown.split("\n");
  let cursor = 0;
  const found: Snippet[] = [];
  marked.walkTokens(marked.lexer(markdown), (token) => {
    if (token.type !== "code") return;
    const code = token as { lang?: string; text: string; raw: string; codeBlockStyle?: string };
    if (code.codeBlockStyle === "indented") return;
    const fence = (code.raw.split("\n")[0] ?? "").trim();
    const at = lines.findIndex((l, i) => i >= cursor && l.trim() === fence);
    if (at >= 0) cursor = at + 1;
    const [language, ...meta] = (code.lang ?? "").trim().split(/\s+/);
    if (!typeScriptLanguages.has((language ?? "").toLowerCase()) || meta.includes("fragment")) return;
    const line = at + 1;
    found.push({ where: `${file}:${line}`, name: `readme-${line}`, code: `${code.text}\n` });
  });
  return found;
};

/**
 * Why `snippet` does not follow the convention, or undefined: it must import from `agent-onion`.
 *
 * @example
 * conventionProblem({ where: "README.md:3", name: "readme-3", code: "const x = 1;\n" }) // "README.md:3: ..."
 */
export const conventionProblem = (snippet: Snippet): string | undefined => {
  const source = ts.createSourceFile(`${snippet.name}.ts`, snippet.code, ts.ScriptTarget.ES2022, true);
  const imports = source.statements.filter(ts.isImportDeclaration).map((s) => (s.moduleSpecifier as ts.StringLiteral).text);
  return imports.some((m) => m === "agent-onion" || m.startsWith("agent-onion/"))
    ? undefined
    : `${snippet.where}: a \`\`\`ts block must be a complete program that imports from "agent-onion" (mark a partial example as \`\`\`ts fragment)`;
};

/**
 * The snippet as a CommonJS program: its imports stay at the top (TypeScript compiles them to
 * `require`), and the rest runs in an async function, since CommonJS has no top-level `await`.
 *
 * @example
 * asCommonJs("import { x } from \"agent-onion\";\nawait x();\n") // 'import { x } from "agent-onion";\n(async () => {\nawait x();\n})()...'
 */
export const asCommonJs = (code: string): string => {
  const source = ts.createSourceFile("snippet.ts", code, ts.ScriptTarget.ES2022, true);
  const isImport = (s: ts.Statement): boolean => ts.isImportDeclaration(s) || ts.isImportEqualsDeclaration(s);
  const imports = source.statements.filter(isImport);
  const body = source.statements.filter((s) => !isImport(s));
  const text = (nodes: readonly ts.Statement[]) =>
    nodes
      .map((s) => s.getFullText(source))
      .join("")
      .replace(/^\n+/, "");
  return `${text(imports)}\n\n(async () => {\n${text(body)}\n})().catch((error: unknown) => {\n  console.error(error);\n  process.exit(1);\n});\n`;
};
