/**
 * A quote-aware reader of POSIX shell text. It finds every simple command, including those in
 * `$(…)`, backticks, `(…)` subshells, process substitutions and here-document bodies, without
 * running or expanding anything, and the text a here-string or here-document feeds to each. It is deliberately strict: anything it cannot read with
 * certainty (an unclosed quote, a stray `)`, a `case` pattern) is reported as unreadable, so
 * that callers can fail towards the cautious side instead of guessing.
 */

/** One word after quote removal. `bare` keeps only its unquoted characters (where globs and braces would expand). */
export interface Word {
  text: string;
  bare: string;
  /** Some part was quoted or escaped (here-document delimiters use this). */
  quoted: boolean;
  /** Some part is computed at run time: `$VAR`, `${…}`, `$(…)`, backticks, `$((…))`. */
  dynamic: boolean;
}

/**
 * One option a command was given, as getopt reads it: `-I{}` and `-rI {}` both give `-I` the value `{}`,
 * `--replace=@` gives `--replace` the value `@`; a flag has no value.
 */
export interface GivenOption {
  readonly option: string;
  readonly value?: Word;
}

/**
 * One simple command's words. `stdin` is the text a here-string (`<<< '…'`) or here-document feeds
 * to its standard input (the last redirection of descriptor 0 wins); it is absent when the input is
 * inherited, a pipe or a file, whose contents cannot be known from the text.
 */
export type SimpleCommand = readonly Word[] & { readonly stdin?: Word };

/** What the reader found: each simple command as words, and whether anything expands at run time. */
export interface ShellSyntax {
  readonly commands: readonly SimpleCommand[];
  readonly dynamic: boolean;
}

/** Deeper nesting than this is treated as unreadable: it bounds recursion on hostile input. */
export const MAX_NESTING = 32;

class Unreadable extends Error {}

/**
 * Read `src` into simple commands; `undefined` when it cannot be read with certainty.
 *
 * @example
 * readShell(`echo "a && b" && rm x`)?.commands.map((c) => c.map((w) => w.text).join(" "))
 * // ["echo a && b", "rm x"]
 */
export const readShell = (src: string, depth = 0): ShellSyntax | undefined => {
  try {
    const reader = new Reader(src, depth);
    reader.list(false);
    return { commands: reader.commands, dynamic: reader.dynamic };
  } catch (error) {
    if (error instanceof Unreadable) return undefined;
    throw error;
  }
};

type Redirect = "file" | "herestring" | "heredoc" | "heredoc-tabs";
const newWord = (): Word => ({ text: "", bare: "", quoted: false, dynamic: false });
// `$'…'` escapes we decode; any other escape (hex, octal, unicode) could spell a command name, so it marks the word dynamic.
/** Reserved words after which a word is in command position. */
const openers = new Set(["if", "then", "else", "elif", "do", "while", "until", "!", "{", "}"]);
const ansiEscapes: Record<string, string> = { n: "\n", t: "\t", r: "\r", "\\": "\\", "'": "'", '"': '"', "?": "?" };

const isOpener = (w: Word): boolean => !w.quoted && openers.has(w.text);

/**
 * `function name` (bash's keyword form) only names the function: the body that follows (`{ …; }`,
 * `( … )`, on this line or the next) is ordinary commands, so the header is dropped when its name ends.
 * `leadingOpeners` counts the reserved words that open `words`, kept by the caller so that this check
 * costs the same on every word (a copy of the words before it made `echo function x function x …` quadratic).
 */
const dropFunctionHeader = (words: Word[], leadingOpeners: number): void => {
  const at = words.length - 2;
  const keyword = words[at];
  if (keyword?.text !== "function" || keyword.quoted) return;
  if (leadingOpeners >= at) words.length = at;
};

class Reader {
  pos = 0;
  dynamic = false;
  readonly commands: SimpleCommand[] = [];
  private level: number;
  /** Here-documents whose bodies follow the next newline; each body is read into its `text` word. */
  private pending: { delim: string; tabs: boolean; expand: boolean; text: Word }[] = [];

  constructor(private readonly src: string, depth: number) {
    this.level = depth;
  }

  /** Read commands until the end of input, or (when `inParens`) until the `)` that closes this list. */
  list(inParens: boolean): void {
    this.enter();
    const src = this.src;
    let words: Word[] = [];
    /** How many of `words`, from the first, are reserved words after which a command begins (`if`, `{`, …). */
    let leadingOpeners = 0;
    let word: Word | undefined;
    let redirect: Redirect | undefined;
    /** The redirection being read is of descriptor 0 and reads into the command (`<`, `<<<`, `<<`, `<>`, `<&`). */
    let intoStdin = false;
    let stdin: Word | undefined;
    const current = (): Word => (word ??= newWord());
    const endWord = (): void => {
      if (word === undefined) return;
      // A `case` command's patterns end in an unbalanced `)`, which inside `$(…)` would close the
      // substitution early and hide what follows: such text is unreadable (fails towards the guard).
      if (word.text === "case" && !word.quoted && redirect === undefined && leadingOpeners === words.length) throw new Unreadable();
      if (redirect === undefined) {
        if (leadingOpeners === words.length && isOpener(word)) leadingOpeners++;
        words.push(word);
        dropFunctionHeader(words, leadingOpeners);
      } else if (redirect === "herestring") {
        if (intoStdin) stdin = word;
      } else if (redirect === "file") {
        if (intoStdin) stdin = undefined;
      } else {
        const text = newWord();
        this.pending.push({ delim: word.text, tabs: redirect === "heredoc-tabs", expand: !word.quoted, text });
        if (intoStdin) stdin = text;
      }
      word = undefined;
      redirect = undefined;
      intoStdin = false;
    };
    const endCommand = (): void => {
      // An operator without its target (`ls >; rm x`, `cat <<` at a newline) is a syntax error in sh.
      if (word === undefined && redirect !== undefined) throw new Unreadable();
      endWord();
      if (words.length > 0) this.commands.push(stdin === undefined ? words : Object.assign(words, { stdin }));
      words = [];
      leadingOpeners = 0;
      stdin = undefined;
    };
    while (this.pos < src.length) {
      const c = src.charAt(this.pos);
      const next = src.charAt(this.pos + 1);
      if (c === " " || c === "\t" || c === "\r") {
        endWord();
        this.pos++;
      } else if (c === "\n") {
        endCommand();
        this.pos++;
        this.hereDocuments();
      } else if (c === ";" || c === "|") {
        endCommand();
        this.pos += next === c || next === "&" ? 2 : 1; // ;; ;& || |&
      } else if (c === "&" && next === ">") {
        endWord();
        this.pos += src.charAt(this.pos + 2) === ">" ? 3 : 2;
        redirect = "file";
      } else if (c === "&") {
        endCommand();
        this.pos += next === "&" ? 2 : 1;
      } else if (c === "(" && word === undefined && words.length === 0) {
        if (next === "(") this.arithmetic(newWord(), 0);
        else {
          this.pos++;
          this.list(true);
        }
      } else if (c === "(" && word !== undefined && /^[ \t]*\)/.test(src.slice(this.pos + 1, this.pos + 64))) {
        // `name () { …; }` or `function name () …` defines a function: its body is read as ordinary commands.
        this.pos = src.indexOf(")", this.pos) + 1;
        word = undefined;
        words = [];
        leadingOpeners = 0;
      } else if (c === "(" && word !== undefined && word.bare.endsWith("=")) {
        // `arr=(a b)`: an array assignment; substitutions inside still run, so its contents are read as a list.
        const start = this.pos++;
        this.list(true);
        word.text += src.slice(start, this.pos);
      } else if (c === "(") {
        throw new Unreadable();
      } else if (c === ")") {
        if (!inParens) throw new Unreadable();
        endCommand();
        this.pos++;
        this.leave();
        return;
      } else if ((c === "<" || c === ">") && next === "(") {
        this.substitution(current(), 1); // process substitution <(…) >(…)
      } else if (c === "<" || c === ">") {
        // A file-descriptor number glued to the operator (`2>`) is part of it, not a word.
        let fd = 0;
        if (word !== undefined && redirect === undefined && /^\d+$/.test(word.bare) && word.bare === word.text) {
          fd = Number(word.text);
          word = undefined;
        } else endWord();
        const op = /^(?:<<<|<<-|<<|<>|<&|>>|>\||>&|<|>)/.exec(src.slice(this.pos, this.pos + 3))?.[0] ?? c;
        this.pos += op.length;
        redirect = op === "<<" ? "heredoc" : op === "<<-" ? "heredoc-tabs" : op === "<<<" ? "herestring" : "file";
        intoStdin = c === "<" && fd === 0;
      } else if (c === "#" && word === undefined) {
        const end = src.indexOf("\n", this.pos);
        this.pos = end === -1 ? src.length : end;
      } else if (c === "\\" && next === "\n") {
        this.pos += 2; // line continuation
      } else if (c === "\\") {
        if (next === "") throw new Unreadable();
        const w = current();
        w.text += next;
        w.quoted = true;
        this.pos += 2;
      } else if (c === "'") {
        const end = src.indexOf("'", this.pos + 1);
        if (end === -1) throw new Unreadable();
        const w = current();
        w.text += src.slice(this.pos + 1, end);
        w.quoted = true;
        this.pos = end + 1;
      } else if (c === '"') {
        this.pos++;
        current().quoted = true;
        this.expand(current(), '"');
      } else if (c === "`") {
        this.backtick(current());
      } else if (c === "$") {
        this.dollar(current(), false);
      } else {
        const w = current();
        w.text += c;
        w.bare += c;
        this.pos++;
      }
    }
    if (inParens) throw new Unreadable();
    endCommand();
    this.leave();
  }

  /** Read a here-document body after a newline; unquoted delimiters mean the body expands `$(…)` and backticks. */
  private hereDocuments(): void {
    const src = this.src;
    for (const doc of this.pending) {
      let body = "";
      while (this.pos < src.length) {
        const nl = src.indexOf("\n", this.pos);
        const line = src.slice(this.pos, nl === -1 ? src.length : nl);
        this.pos = nl === -1 ? src.length : nl + 1;
        if ((doc.tabs ? line.replace(/^\t+/, "") : line) === doc.delim) break;
        body += `${line}\n`;
      }
      if (doc.expand) this.nested(body, (r) => r.expand(doc.text, undefined));
      else doc.text.text = body;
    }
    this.pending = [];
  }

  /** Text with `$` and backtick expansions: a double-quoted string (closed by `"`) or a here-document body (to the end). */
  expand(w: Word, closing: '"' | undefined): void {
    const src = this.src;
    while (this.pos < src.length) {
      const c = src.charAt(this.pos);
      if (c === closing) {
        this.pos++;
        return;
      }
      if (c === "\\") {
        const n = src.charAt(this.pos + 1);
        if (n === "") throw new Unreadable();
        if ("$`\\\n".includes(n) || (n === '"' && closing === '"')) {
          if (n !== "\n") w.text += n;
          this.pos += 2;
        } else {
          w.text += c;
          this.pos++;
        }
      } else if (c === "$") this.dollar(w, true);
      else if (c === "`") this.backtick(w);
      else {
        w.text += c;
        this.pos++;
      }
    }
    if (closing !== undefined) throw new Unreadable();
  }

  private dollar(w: Word, quoted: boolean): void {
    const src = this.src;
    const n = src.charAt(this.pos + 1);
    if (n === "(" && src.charAt(this.pos + 2) === "(") this.arithmetic(w, 1); else if (n === "(") this.substitution(w, 1);
    else if (n === "{") this.parameter(w);
    else if (n === "'" && !quoted) this.ansiQuoted(w);
    else if (n === '"' && !quoted) {
      this.pos += 2;
      w.quoted = true;
      this.expand(w, '"');
    } else if (/[A-Za-z_0-9@*#?$!-]/.test(n)) {
      const name = /^[A-Za-z_][A-Za-z0-9_]*/.exec(src.slice(this.pos + 1))?.[0] ?? n;
      this.markDynamic(w, src.slice(this.pos, this.pos + 1 + name.length));
      this.pos += 1 + name.length;
    } else {
      w.text += "$";
      if (!quoted) w.bare += "$";
      this.pos++;
    }
  }

  /** `$(…)`, `<(…)`, `>(…)`: the commands inside run; the word gets the raw text. */
  private substitution(w: Word, skip: number): void {
    const start = this.pos;
    this.pos += skip + 1;
    this.list(true);
    this.markDynamic(w, this.src.slice(start, this.pos));
  }

  /** `$((…))` or `((…))`: arithmetic, whose `<<` is a shift, not a here-document. Inner `$(…)` still runs. */
  private arithmetic(w: Word, skip: number): void {
    this.enter();
    const src = this.src;
    const start = this.pos;
    this.pos += skip + 2;
    let depth = 0;
    const scratch = newWord();
    for (;;) {
      const c = src.charAt(this.pos);
      if (c === "") throw new Unreadable();
      if (c === ")" && depth === 0) {
        if (src.charAt(this.pos + 1) !== ")") throw new Unreadable();
        this.pos += 2;
        break;
      }
      if (c === "$") this.dollar(scratch, true);
      else if (c === "`") this.backtick(scratch);
      else {
        if (c === "(") depth++;
        else if (c === ")") depth--;
        this.pos++;
      }
    }
    this.leave();
    this.markDynamic(w, src.slice(start, this.pos));
  }

  /** `${…}`: parameter expansion; commands nested in it (`${x:-$(rm y)}`) still run. */
  private parameter(w: Word): void {
    this.enter();
    const src = this.src;
    const start = this.pos;
    this.pos += 2;
    const scratch = newWord();
    let depth = 0;
    for (;;) {
      const c = src.charAt(this.pos);
      if (c === "") throw new Unreadable();
      if (c === "}" && depth === 0) {
        this.pos++;
        break;
      }
      if (c === "\\") this.pos += 2;
      else if (c === "$") this.dollar(scratch, true);
      else if (c === "`") this.backtick(scratch);
      else if (c === '"') {
        this.pos++;
        this.expand(scratch, '"');
      } else if (c === "'") {
        const end = src.indexOf("'", this.pos + 1);
        if (end === -1) throw new Unreadable();
        this.pos = end + 1;
      } else {
        if (c === "{") depth++;
        else if (c === "}") depth--;
        this.pos++;
      }
    }
    this.leave();
    this.markDynamic(w, src.slice(start, this.pos));
  }

  private backtick(w: Word): void {
    const src = this.src;
    const start = this.pos;
    let body = "";
    this.pos++;
    for (;;) {
      const c = src.charAt(this.pos);
      if (c === "") throw new Unreadable();
      if (c === "`") break;
      const n = src.charAt(this.pos + 1);
      if (c === "\\" && (n === "`" || n === "$" || n === "\\")) {
        body += n;
        this.pos += 2;
      } else {
        body += c;
        this.pos++;
      }
    }
    this.pos++;
    this.nested(body, (r) => r.list(false));
    this.markDynamic(w, src.slice(start, this.pos));
  }

  private ansiQuoted(w: Word): void {
    const src = this.src;
    this.pos += 2;
    w.quoted = true;
    for (;;) {
      const c = src.charAt(this.pos);
      if (c === "") throw new Unreadable();
      if (c === "'") break;
      if (c === "\\") {
        const n = src.charAt(this.pos + 1);
        const decoded = ansiEscapes[n];
        if (decoded === undefined) w.dynamic = this.dynamic = true;
        w.text += decoded ?? n;
        this.pos += 2;
      } else {
        w.text += c;
        this.pos++;
      }
    }
    this.pos++;
  }

  /** Read separate text (a backtick body, a here-document) and keep what it finds. */
  private nested(text: string, read: (reader: Reader) => void): void {
    const reader = new Reader(text, this.level + 1);
    read(reader);
    this.commands.push(...reader.commands);
    if (reader.dynamic) this.dynamic = true;
  }

  private markDynamic(w: Word, raw: string): void {
    w.text += raw;
    w.dynamic = true;
    this.dynamic = true;
  }

  private enter(): void {
    if (++this.level > MAX_NESTING) throw new Unreadable();
  }

  private leave(): void {
    this.level--;
  }
}
