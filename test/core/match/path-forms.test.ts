import { describe, expect, it } from "vitest";
import { pathForms, toPosixPath, type PathContext } from "../../../src/core/match/path-forms.ts";

const context = (over: Partial<PathContext> = {}): PathContext => ({
  cwd: "/home/u/proj",
  home: "/home/u",
  symlinks: false,
  windows: false,
  caseInsensitive: false,
  ...over,
});

describe("the forms of a path, without resolving links", () => {
  const cases: [string, string, string[], boolean][] = [
    // [label, path, forms, opaque]
    ["a relative path", "src/a.ts", ["/home/u/proj/src/a.ts"], false],
    ["dot segments", "./src/./lib/../a.ts", ["/home/u/proj/src/a.ts"], false],
    ["repeated separators", "src//lib///a.ts", ["/home/u/proj/src/lib/a.ts"], false],
    ["climbing above the root stays at the root", "../../../../../../etc/passwd", ["/etc/passwd"], false],
    ["backslashes are separators", "src\\lib\\a.ts", ["/home/u/proj/src/lib/a.ts"], false],
    ["a trailing separator", "/etc/", ["/etc"], false],
    ["the root", "/", ["/"], false],
    ["~ as a directory and as the home", "~/.ssh/id_rsa", ["/home/u/proj/~/.ssh/id_rsa", "/home/u/.ssh/id_rsa"], false],
    ["/proc/self/root", "/proc/self/root/etc/passwd", ["/etc/passwd"], false],
    ["/proc/thread-self/root", "/proc/thread-self/root/etc/passwd", ["/etc/passwd"], false],
    ["/proc/<own pid>/root", `/proc/${process.pid}/root/etc/passwd`, ["/etc/passwd"], false],
    ["/proc/self/task/<tid>/root", "/proc/self/task/7/root/etc/passwd", ["/etc/passwd"], false],
    ["nested root aliases", "/proc/self/root/proc/self/root/etc", ["/etc"], false],
    [".. after a root alias", "/proc/self/root/../etc/passwd", ["/etc/passwd"], false],
    ["a relative path into /proc", "../../../proc/self/root/etc/passwd", ["/etc/passwd"], false],
    ["another process's root", "/proc/1/root/etc/passwd", ["/proc/1/root/etc/passwd"], true],
    ["a process's cwd", "/proc/self/cwd/.env", ["/proc/self/cwd/.env"], true],
    ["through /dev/fd/N", "/dev/fd/3/etc/passwd", ["/dev/fd/3/etc/passwd"], true],
    ["through /proc/self/fd/N", "/proc/self/fd/3/etc/passwd", ["/proc/self/fd/3/etc/passwd"], true],
    ["through /dev/stdin", "/dev/stdin/x", ["/dev/stdin/x"], true],
    ["/dev/stdin itself", "/dev/stdin", ["/dev/stdin"], false],
    ["/proc/self/root/ itself", "/proc/self/root", ["/"], false],
  ];
  it.each(cases)("%s: %s", (_label, path, forms, opaque) => {
    expect(pathForms(path, context())).toMatchObject({ forms, opaque });
  });

  it("folds case when the context is case-insensitive", () => {
    expect(pathForms("Src/A.ts", context({ caseInsensitive: true })).forms).toEqual(["/home/u/proj/src/a.ts"]);
  });

  it("reads Windows paths as Claude Code writes them", () => {
    expect(toPosixPath("C:\\proj\\src\\a.ts", true)).toBe("/c/proj/src/a.ts");
    expect(toPosixPath("\\\\?\\C:\\proj\\a.ts", true)).toBe("/c/proj/a.ts");
    expect(pathForms("src\\..\\..\\secret", context({ windows: true, cwd: "C:\\proj" })).forms).toEqual(["/c/secret"]);
    expect(pathForms("\\\\server\\share\\x", context({ windows: true, cwd: "C:\\proj" })).opaque).toBe(true);
  });
});
