/**
 * What a `sed` command does besides printing: GNU sed runs shell commands (`e`, the `e` flag of `s`),
 * writes files (`w`, `W`, the `w` flag of `s`, `-i`) and reads them (`r`, `R`). Its options are read as
 * its getopt reads them and its script with an explicit list of the commands this reader understands;
 * anything else (a script from a file, a word computed at run time, an unknown option or command) is
 * opaque, so `Bash(sed *)` does not allow `sed '1e rm -rf /' f` or `sed -n 'w .git/config' f`.
 */
import type { Word } from "./script.ts";
import { readWrapper, UnknownOption, type WrapperSyntax } from "./wrappers.ts";

/** A file sed opens by name: its `w`/`W`/`r`/`R` files and, with `-i`, the files it edits in place. */
export interface SedFile {
  readonly path: Word;
  readonly writes: boolean;
}

/** What a sed command does besides printing: the files it opens, or why it is opaque. */
export type SedReading = { readonly files: readonly SedFile[] } | { readonly opaque: string };

/** GNU sed 4.9's options, as its getopt_long reads them. */
const sedOptions: WrapperSyntax = {
  short: "bnrsuzEe:f:l:i::",
  long: {
    binary: "none",
    debug: "none",
    expression: "required",
    file: "required",
    "follow-symlinks": "none",
    "in-place": "optional",
    "line-length": "required",
    "null-data": "none",
    "zero-terminated": "none",
    posix: "none",
    quiet: "none",
    silent: "none",
    sandbox: "none",
    separate: "none",
    unbuffered: "none",
    "regexp-extended": "none",
    help: "none",
    version: "none",
  },
  operands: 0,
  permutes: true,
};

/** Commands that take no argument (or a number, for `q`, `Q`, `l`, `L`). */
const plainCommands = new Set([..."=dDgGhHnNpPxzFqQlL"]);
/** Flags of `s` besides `w` and `e`. */
const plainFlags = /^[gpiImM0-9]$/;

/**
 * Read a sed command's words (`words[0]` is `sed`).
 *
 * @example
 * readSed(["sed", "-n", "1e rm -rf /", "f"].map((text) => ({ text, literal: true, quoted: false })))
 * // { opaque: "sed's e command runs a shell command" }
 */
export const readSed = (words: readonly Word[]): SedReading => {
  if (words.slice(1).some((w) => !w.literal)) return { opaque: "sed with a word computed at run time" };
  let call;
  try {
    call = readWrapper(sedOptions, words, (w) => w.text);
  } catch (error) {
    if (error instanceof UnknownOption) return { opaque: `sed ${error.message}: an option its table does not list` };
    throw error;
  }
  const given = (option: string): boolean => call.options.some((o) => o.option === option);
  if (given("--help") || given("--version")) return { files: [] };
  if (given("-f") || given("--file")) return { opaque: "sed reads its script from a file" };
  const scripts = call.options.filter((o) => o.option === "-e" || o.option === "--expression").map((o) => valueText(o.value));
  let operands = call.command;
  if (scripts.length === 0) {
    if (operands[0] === undefined) return { files: [] };
    scripts.push(operands[0].text);
    operands = operands.slice(1);
  }
  const script = readScript(scripts.join("\n"));
  if ("opaque" in script) return script;
  // With --sandbox sed refuses e, r and w: the script ran nothing and opened nothing, or sed stops.
  const files: SedFile[] = given("--sandbox")
    ? []
    : script.files.map((f) => ({ path: { text: f.path, literal: true, quoted: false }, writes: f.writes }));
  if (given("-i") || given("--in-place")) for (const w of operands) if (w.text !== "-") files.push({ path: w, writes: true });
  return { files };
};

const valueText = (value: string | Word | undefined): string => (value === undefined ? "" : typeof value === "string" ? value : value.text);

/**
 * Read a GNU sed script: addresses, then one command each; `e` (and the `e` flag of `s`) is opaque,
 * `r`/`R`/`w`/`W` (and the `w` flag) name files to the end of the line. Text after `a`, `i` and `c`
 * runs to the end of the line; a line that continues it is read as commands, which can only make
 * the script opaque, never hide a command.
 */
const readScript = (s: string): { readonly files: readonly { path: string; writes: boolean }[] } | { readonly opaque: string } => {
  const files: { path: string; writes: boolean }[] = [];
  let i = 0;
  const toEndOfLine = (): string => {
    const end = s.indexOf("\n", i);
    const text = s.slice(i, end < 0 ? s.length : end);
    i = end < 0 ? s.length : end;
    return text;
  };
  const blanks = (): void => {
    while (i < s.length && (s[i] === " " || s[i] === "\t")) i++;
  };
  /** A delimited part (`/re/`, `s/a/b/`'s parts): up to the next unescaped delimiter; false when it does not end. */
  const delimited = (delimiter: string): boolean => {
    while (i < s.length) {
      const c = s[i]!;
      if (c === "\\") i += 2;
      else if (c === delimiter) {
        i++;
        return true;
      } else if (c === "\n" && delimiter !== "\n") return false;
      else i++;
    }
    return false;
  };
  const address = (): boolean => {
    const c = s[i];
    if (c === undefined) return true;
    if (/[0-9]/.test(c)) {
      while (i < s.length && /[0-9~]/.test(s[i]!)) i++;
      return true;
    }
    if (c === "$") {
      i++;
      return true;
    }
    if (c === "/" || c === "\\") {
      const delimiter = c === "/" ? "/" : s[i + 1];
      if (delimiter === undefined || delimiter === "\n" || delimiter === "\\") return false;
      i += c === "/" ? 1 : 2;
      if (!delimited(delimiter)) return false;
      while (i < s.length && /[IM]/.test(s[i]!)) i++;
      return true;
    }
    return true;
  };
  /** A file name after `r`, `R`, `w`, `W` or the `w` flag: the rest of the line, after blanks. */
  const fileName = (writes: boolean): string | undefined => {
    blanks();
    const path = toEndOfLine();
    if (path === "") return "a file command without a file";
    files.push({ path, writes });
    return undefined;
  };
  while (i < s.length) {
    const c = s[i]!;
    if (c === " " || c === "\t" || c === "\n" || c === ";" || c === "}") {
      i++;
      continue;
    }
    if (c === "#") {
      toEndOfLine();
      continue;
    }
    if (!address()) return { opaque: "a sed address this reader does not follow" };
    blanks();
    if (s[i] === ",") {
      i++;
      blanks();
      if (s[i] === "+" || s[i] === "~") i++;
      if (!address()) return { opaque: "a sed address this reader does not follow" };
      blanks();
    }
    while (s[i] === "!" || s[i] === " " || s[i] === "\t") i++;
    const command = s[i];
    if (command === undefined) return { opaque: "a sed address without a command" };
    i++;
    if (command === "{" || command === "}") continue;
    if (plainCommands.has(command)) {
      blanks();
      while (i < s.length && /[0-9]/.test(s[i]!)) i++;
      continue;
    }
    switch (command) {
      case "e":
        return { opaque: "sed's e command runs a shell command" };
      case "r":
      case "R":
      case "w":
      case "W": {
        const problem = fileName(command === "w" || command === "W");
        if (problem !== undefined) return { opaque: problem };
        continue;
      }
      case "a":
      case "i":
      case "c":
      case ":":
      case "b":
      case "t":
      case "T":
      case "v":
        // Text runs to the end of the line. A label or a version ends at a blank or `;`, the shortest
        // reading sed may have: what follows is read as commands, so nothing can hide behind it.
        if (command === "a" || command === "i" || command === "c") toEndOfLine();
        else {
          blanks();
          while (i < s.length && !/[\s;]/.test(s[i]!)) i++;
        }
        continue;
      case "s":
      case "y": {
        const delimiter = s[i];
        if (delimiter === undefined || delimiter === "\n" || delimiter === "\\")
          return { opaque: `a sed ${command} command this reader does not follow` };
        i++;
        if (!delimited(delimiter) || !delimited(delimiter)) return { opaque: `a sed ${command} command this reader does not follow` };
        if (command === "y") continue;
        for (; i < s.length && s[i] !== "\n" && s[i] !== ";" && s[i] !== "}"; i++) {
          const flag = s[i]!;
          if (flag === " " || flag === "\t" || plainFlags.test(flag)) continue;
          if (flag === "e") return { opaque: "sed's e flag runs the pattern space as a shell command" };
          if (flag === "w") {
            i++;
            const problem = fileName(true);
            if (problem !== undefined) return { opaque: problem };
            break;
          }
          return { opaque: `a sed s flag this reader does not follow: ${flag}` };
        }
        continue;
      }
      default:
        return { opaque: `a sed command this reader does not follow: ${command}` };
    }
  }
  return { files };
};
