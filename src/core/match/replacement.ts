/**
 * Where `xargs -I`, GNU `parallel` and `find -exec` put the text they read into the command they run.
 * A shell script that holds such a replacement string (`xargs -I{} sh -c '{}'`, `… sh -c 'echo {}'`)
 * is only known when that text arrives, so its code cannot be read from the command line.
 */
import type { Word } from "./shell-syntax.ts";

/** True when a script holds a replacement string, so part of its code is filled in at run time. */
export type FilledIn = (script: string) => boolean;

/** GNU parallel's own replacement strings: `{}`, `{.}`, `{/}`, `{//}`, `{/.}`, `{#}`, `{%}`, `{1}`, `{=…=}`. */
const parallelStrings = /\{[^\s{}]*\}/;

/** `find -exec … {} ;` puts each path where `{}` stands. */
export const findFillsIn: FilledIn = (script) => script.includes("{}");

/**
 * What a wrapper fills into the command it runs, from its options (the words between its name and
 * that command); `undefined` for a wrapper that fills in nothing, or xargs without `-I`/`-i`/`--replace`,
 * which appends its input as arguments instead.
 *
 * @example
 * fillsIn("xargs", readShell("xargs -I X")!.commands[0]!.slice(1))!("sh -c X") // true
 */
export const fillsIn = (name: string, options: readonly Word[]): FilledIn | undefined => {
  if (name !== "xargs" && name !== "parallel") return undefined;
  const given = options.flatMap((w, i) => replacementGiven(w.text, options[i + 1]?.text));
  if (name === "parallel") return (script) => parallelStrings.test(script) || given.some((s) => script.includes(s));
  return given.length === 0 ? undefined : (script) => given.some((s) => script.includes(s));
};

/** The replacement string an option sets: `-I R`, `-IR`, `-i`/`--replace` (meaning `{}`), `-iR`, `--replace=R`. */
const replacementGiven = (option: string, next: string | undefined): string[] => {
  if (option === "-I") return next === undefined ? [] : [next];
  if (option === "-i" || option === "--replace") return ["{}"];
  const glued = /^(?:-I|-i|--replace=)(.+)$/.exec(option)?.[1];
  return glued === undefined ? [] : [glued];
};
