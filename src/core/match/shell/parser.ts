/**
 * Reading shell text into a syntax tree with tree-sitter-bash, the grammar GitHub and editors use for
 * bash, through the native `tree-sitter` binding (synchronous: matching runs inside the hook chain).
 * The binding is loaded on the first parse, so importing the package stays cheap.
 *
 * The tree is copied into plain objects once (a walk over the native tree costs a call per property)
 * and checked against the text, so that nothing the parser skipped can hide: every character outside
 * a token must be a blank, a newline or a line continuation after a blank (tree-sitter drops `\ ` and
 * reads `r\<newline>m` as two words; bash reads one), and a tree with an error or a missing node is
 * not a reading of the text at all.
 */
import { createRequire } from "node:module";
import type TreeSitter from "tree-sitter";

/** One node of the tree: its kind, whether the grammar names it, its field in the parent, and its range in UTF-16 units. */
export interface SyntaxNode {
  readonly type: string;
  readonly named: boolean;
  readonly field: string | undefined;
  readonly start: number;
  readonly end: number;
  readonly children: readonly SyntaxNode[];
}

/** Longest command read; a longer one is not parsed, so it is opaque (see docs/shell-analysis.md). */
export const MAX_COMMAND_LENGTH = 64 * 1024;

/**
 * Most here-document operators (`<<`, counted in the raw text, quotes and all) a command may hold: the
 * grammar's cost grows with the square of the here-documents pending at once (2,000 on one line take
 * seconds), and no real command holds this many.
 */
export const MAX_HERE_DOCUMENTS = 256;

/**
 * Characters bash reads as ordinary word characters but tree-sitter-bash reads as blanks (`\r`, `\v`,
 * `\f`). Each is replaced, for the parser only, by a private-use character that both read as a word
 * character; texts are always sliced from the original, which has the same length.
 */
const blanksToMask = /[\r\v\f]/g;
const mask = "\uE000";

let parser: TreeSitter | undefined;

/** The parser, loaded on first use; throws an `Error` saying why when the native binding cannot load. */
const load = (): TreeSitter => {
  if (parser !== undefined) return parser;
  const require = createRequire(import.meta.url);
  let made: TreeSitter;
  try {
    const Parser = require("tree-sitter") as typeof TreeSitter;
    made = new Parser();
    made.setLanguage(require("tree-sitter-bash") as TreeSitter.Language);
  } catch (cause) {
    throw new Error(
      `cannot load the shell parser (tree-sitter, tree-sitter-bash): ${cause instanceof Error ? cause.message : String(cause)}`,
      { cause },
    );
  }
  parser = made;
  return made;
};

/**
 * Load the shell parser now rather than on the first command (it takes about 10 ms); throws when it
 * cannot load, naming the cause.
 *
 * @example
 * loadShellParser();
 */
export const loadShellParser = (): void => void load();

/**
 * The syntax tree of `text`, or `undefined` when the parser could not read all of it the way bash
 * would (an error or missing node, a skipped character, a NUL, a text over `MAX_COMMAND_LENGTH`).
 *
 * @example
 * parseShell("ls && rm x")?.children[0]?.type // "list"
 */
export const parseShell = (text: string): SyntaxNode | undefined => {
  if (text.length > MAX_COMMAND_LENGTH || text.includes("\0") || tooManyHereDocuments(text)) return undefined;
  const p = load();
  const tree = p.parse(text.replace(blanksToMask, mask), null, { bufferSize: Math.max(1024, text.length * 2 + 2) });
  if (tree.rootNode.hasError) return undefined;
  const root = copyTree(tree.walk(), text);
  return root === undefined || gluedDescriptor(root, text) ? undefined : root;
};

const tooManyHereDocuments = (text: string): boolean => {
  let count = 0;
  for (let at = text.indexOf("<<"); at >= 0; at = text.indexOf("<<", at + 2)) if (++count > MAX_HERE_DOCUMENTS) return true;
  return false;
};

const redirects = new Set(["file_redirect", "heredoc_redirect", "herestring_redirect"]);
/** What may stand right before a word: the text's start, a blank, a newline or an operator character. */
const wordStart = (c: number): boolean =>
  Number.isNaN(c) || c === 32 || c === 9 || c === 10 || c === 59 || c === 38 || c === 124 || c === 40 || c === 41 || c === 60 || c === 62;

/**
 * Whether a redirection the grammar read without a descriptor touches a word bash reads as its
 * descriptor: a number (`bash 0<<< 'code'`, where the grammar reads `0` as an argument) or a
 * variable's name in braces (`{fd}>file`, whose subscript `{a[$x]}` bash evaluates).
 */
const gluedDescriptor = (root: SyntaxNode, text: string): boolean => {
  const stack: SyntaxNode[] = [root];
  while (stack.length > 0) {
    const n = stack.pop()!;
    for (const c of n.children) stack.push(c);
    if (!redirects.has(n.type) || n.children.some((c) => c.field === "descriptor")) continue;
    let i = n.start - 1;
    const last = text.charCodeAt(i);
    if (last >= 48 && last <= 57) {
      while (i > 0 && text.charCodeAt(i - 1) >= 48 && text.charCodeAt(i - 1) <= 57) i--;
      if (wordStart(text.charCodeAt(i - 1))) return true;
    } else if (last === 125) {
      const open = text.lastIndexOf("{", i);
      if (open !== -1 && !/[\s]/.test(text.slice(open, i)) && wordStart(text.charCodeAt(open - 1))) return true;
    }
  }
  return false;
};

interface Building {
  readonly type: string;
  readonly named: boolean;
  readonly field: string | undefined;
  readonly start: number;
  readonly end: number;
  readonly children: SyntaxNode[];
}

/** Copy the tree with one cursor walk (no recursion, so depth costs no stack), checking the text between tokens. */
const copyTree = (cursor: TreeSitter.TreeCursor, text: string): SyntaxNode | undefined => {
  const node = (): Building => ({
    type: cursor.nodeType,
    named: cursor.nodeIsNamed,
    field: cursor.currentFieldName ?? undefined,
    start: cursor.startIndex,
    end: cursor.endIndex,
    children: [],
  });
  const root = node();
  const stack: Building[] = [root];
  let last = 0; // where the previous token ended
  for (;;) {
    if (cursor.nodeIsMissing) return undefined;
    if (cursor.gotoFirstChild()) {
      const child = node();
      stack[stack.length - 1]!.children.push(child);
      stack.push(child);
      continue;
    }
    // A token (or a node whose text the grammar keeps whole): check the gap before it.
    const leaf = stack[stack.length - 1]!;
    if (!blankGap(text, last, leaf.start)) return undefined;
    if (!tokenAsBash(leaf, stack, text)) return undefined;
    last = Math.max(last, leaf.end);
    for (;;) {
      stack.pop();
      if (cursor.gotoNextSibling()) {
        const sibling = node();
        stack[stack.length - 1]!.children.push(sibling);
        stack.push(sibling);
        break;
      }
      if (!cursor.gotoParent()) return blankGap(text, last, text.length) ? root : undefined;
    }
  }
};

/**
 * Whether a token is one bash would read the same way: a comment starts a word (bash reads `a#b` and
 * `}[[#` as words, where the grammar can start a comment), and a plain word outside `${…}` holds no
 * unescaped blank (the grammar reads `} }` as one word; bash as two).
 */
const tokenAsBash = (leaf: Building, stack: readonly Building[], text: string): boolean => {
  if (leaf.type === "comment") return leaf.start === 0 || commentMayFollow(text.charCodeAt(leaf.start - 1));
  if (leaf.type !== "word" || stack.some((n) => n.type === "expansion")) return true;
  for (let i = leaf.start; i < leaf.end; i++) {
    const c = text.charCodeAt(i);
    if (c === 92) i++;
    else if (c === 32 || c === 9 || c === 10) return false;
  }
  return true;
};

/** What may stand right before a comment for bash to read it as one: a blank, a newline or an operator character. */
const commentMayFollow = (c: number): boolean =>
  c === 32 || c === 9 || c === 10 || c === 59 || c === 38 || c === 124 || c === 40 || c === 41 || c === 60 || c === 62;

/**
 * True when `text[from, to)` holds only blanks, newlines and line continuations that follow a blank:
 * a continuation glued to a word joins it to the next one in bash.
 */
const blankGap = (text: string, from: number, to: number): boolean => {
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c === 32 || c === 9 || c === 10) continue;
    if (c !== 92 || i + 1 >= to || text.charCodeAt(i + 1) !== 10) return false;
    // Only after a blank: a backslash alone on a line is where the grammar and bash part ways.
    const before = i === 0 ? 0 : text.charCodeAt(i - 1);
    if (before !== 32 && before !== 9) return false;
    i++;
  }
  return true;
};
