// API reference: `npm run docs` writes it to docs/reference/ (git-ignored). One entry point per
// subpath of package.json's "exports", read from there so a new subpath is documented without
// editing this file. An exported declaration without a doc comment fails the build, and so does a
// type that a public signature names but no entry point exports (users could not name it).
import { readFileSync } from "node:fs";

const pkg = JSON.parse(readFileSync(new URL("./package.json", import.meta.url), "utf8"));
const entryPoints = Object.values(pkg.exports)
  .filter((target) => typeof target === "object")
  .map((target) => target.default.replace(/^\.\/dist\//, "./src/").replace(/\.js$/, ".ts"));

/** @type {Partial<import("typedoc").TypeDocOptions>} */
export default {
  entryPoints,
  out: "docs/reference",
  tsconfig: "tsconfig.json",
  // Type errors are npm run typecheck's to report; the reference must not fail on a benchmark
  // that needs a build first.
  skipErrorChecking: true,
  readme: "none",
  excludePrivate: true,
  excludeInternal: true,
  validation: {
    notExported: true,
    invalidLink: true,
    invalidPath: true,
    rewrittenLink: true,
    notDocumented: true,
    unusedMergeModuleWith: true,
  },
  // Declarations users import must say what they are; their members (an interface's fields, a
  // class's methods) are documented where they need it, not required one by one.
  requiredToBeDocumented: ["Enum", "Variable", "Function", "Class", "Interface", "TypeAlias"],
  // GuardedChatModel inherits LangChain's methods, whose comments link to LangChain's own names.
  externalSymbolLinkMappings: { "@langchain/core": { "*": "https://www.npmjs.com/package/@langchain/core" } },
  treatValidationWarningsAsErrors: true,
  treatWarningsAsErrors: false,
};
