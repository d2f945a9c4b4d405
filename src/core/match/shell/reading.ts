/**
 * What a program's options make of a call, as the per-program readers (`programs.ts`, `curl.ts`,
 * `vitest.ts`) report it.
 */
import type { Word } from "./script.ts";

/** What a program's options make of a call. */
export interface ProgramReading {
  /** Why the call is opaque, if it is. */
  readonly opaque?: string;
  /** An option the reader does not know, which may change what runs: only a rule naming the program alone allows the call. */
  readonly unknown?: string;
  /** Files it writes: `under` for a directory whose files it writes. */
  readonly writes: readonly { readonly path: Word; readonly under: boolean }[];
  /** Files it reads and sends or runs by its options (`curl -T f`, `-d @f`). */
  readonly reads?: readonly Word[];
}

/**
 * A word computed at run time that cannot become an option: it does not split into several words (no
 * expansion outside quotes, no `"$@"`), and its first character is known and not a dash
 * (`"https://api.github.com/repos/$R"`, `https://x/?a`): a glob or a brace then expands to words starting alike.
 *
 * @example
 * operandOnly({ text: "https://x/$R", literal: false, quoted: true }) // true
 */
export const operandOnly = (w: Word): boolean => w.splits !== true && !/\$\{?[@*]|\[[@*]\]/.test(w.text) && /^[A-Za-z0-9/._:]/.test(w.text);
