/**
 * Where `xargs -I`, GNU `parallel` and `find -exec` put the text they read into the command they run.
 * A shell script that holds such a replacement string (`xargs -I{} sh -c '{}'`, `… sh -c 'echo {}'`)
 * is only known when that text arrives, so its code cannot be read from the command line; neither is
 * a command name that holds one (`find -exec {} ;`).
 */

/** True when a script holds a replacement string, so part of its code is filled in at run time. */
export type FilledIn = (script: string) => boolean;

/** One option a wrapper was given, with the value getopt gave it (`-I{}` and `-I {}` both give `-I` the value `{}`). */
export interface GivenOption {
  readonly option: string;
  readonly value?: string | undefined;
}

/** GNU parallel's own replacement strings: `{}`, `{.}`, `{/}`, `{//}`, `{/.}`, `{#}`, `{%}`, `{1}`, `{=…=}`. */
const parallelStrings = /\{[^\s{}]*\}/;

/** `find -exec … {} ;` puts each path where `{}` stands. */
export const findFillsIn: FilledIn = (script) => script.includes("{}");

/**
 * What a wrapper fills into the command it runs, from its options as getopt reads them (so `-rI{}`
 * and `-0iX` count); `undefined` for a wrapper that fills in nothing, or xargs without
 * `-I`/`-i`/`--replace`, which appends its input as arguments instead.
 *
 * @example
 * fillsIn("xargs", [{ option: "-I", value: "X" }])!("sh -c X") // true
 */
export const fillsIn = (name: string, options: readonly GivenOption[]): FilledIn | undefined => {
  if (name !== "xargs" && name !== "parallel") return undefined;
  const given = options.flatMap(replacementGiven);
  if (name === "parallel") return (script) => parallelStrings.test(script) || given.some((s) => script.includes(s));
  return given.length === 0 ? undefined : (script) => given.some((s) => script.includes(s));
};

/** The replacement string an option sets: `-I R`, `-i`/`--replace` (meaning `{}`), `-iR`, `--replace=R`. */
const replacementGiven = ({ option, value }: GivenOption): string[] => {
  if (option === "-I") return value === undefined ? [] : [value];
  if (option === "-i" || option === "--replace") return [value ?? "{}"];
  return [];
};
