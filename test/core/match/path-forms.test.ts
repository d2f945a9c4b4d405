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
    [
      "a backslash is part of a name, and a separator for a deny",
      "src\\lib\\a.ts",
      ["/home/u/proj/src\\lib\\a.ts", "/home/u/proj/src/lib/a.ts"],
      false,
    ],
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
    ["/dev/stdin itself: the tool's descriptor", "/dev/stdin", ["/dev/stdin"], true],
    ["/dev/fd/N itself", "/dev/fd/5", ["/dev/fd/5"], true],
    ["/dev//stdout", "/dev//stdout", ["/dev/stdout"], true],
    ["/proc/self/fd/N itself", "/proc/self/fd/3", ["/proc/self/fd/3"], true],
    ["/proc/thread-self/fd/N itself", "/proc/thread-self/fd/3", ["/proc/thread-self/fd/3"], true],
    ["/proc/self/task/<tid>/fd/N itself", "/proc/self/task/9/fd/3", ["/proc/self/task/9/fd/3"], true],
    ["another process's descriptor", "/proc/1/fd/3", ["/proc/1/fd/3"], true],
    ["a mapped file of a process", "/proc/self/map_files/400000-452000", ["/proc/self/map_files/400000-452000"], true],
    ["a process's descriptor list is a directory", "/proc/self/fd", ["/proc/self/fd"], false],
    ["a process's descriptor info is text", "/proc/self/fdinfo/3", ["/proc/self/fdinfo/3"], false],
    ["a NUL in the path", "/home/u/proj/.env\u0000.txt", ["/home/u/proj/.env\u0000.txt"], true],
    ["$HOME as a directory and as the home", "$HOME/.ssh/id_rsa", ["/home/u/proj/$HOME/.ssh/id_rsa", "/home/u/.ssh/id_rsa"], false],
    ["${HOME}", "${HOME}/.ssh", ["/home/u/proj/${HOME}/.ssh", "/home/u/.ssh"], false],
    ["~root, as a shell expands it", "~root/.ssh", ["/home/u/proj/~root/.ssh", "/root/.ssh"], false],
    ["~ of a user nobody has", "~nosuchuser_x/.ssh", ["/home/u/proj/~nosuchuser_x/.ssh"], false],
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

  const windows = context({ windows: true, cwd: "C:\\proj", home: "C:\\Users\\u" });
  it.each([
    ["trailing dots", "C:\\proj\\.env.", ["/c/proj/.env"]],
    ["trailing spaces", "C:\\proj\\.env  ", ["/c/proj/.env"]],
    ["the main data stream", "C:\\proj\\.env::$DATA", ["/c/proj/.env"]],
    ["another stream of the file", "C:\\proj\\.env:hidden", ["/c/proj/.env"]],
    ["a stream on a directory", "C:\\proj\\secrets::$INDEX_ALLOCATION\\key.pem", ["/c/proj/secrets/key.pem"]],
    ["a drive-relative path on the working directory's drive", "C:secrets\\key.pem", ["/c/proj/secrets/key.pem"]],
    ["a root-relative path: both readings", "\\proj\\.env", ["/proj/.env", "/c/proj/.env"]],
    ["a verbatim path keeps its trailing dot", "\\\\?\\C:\\proj\\.env.", ["/c/proj/.env."]],
  ])("reads Windows paths as Windows opens them: %s", (_label, path, forms) => {
    expect(pathForms(path, windows)).toMatchObject({ forms, opaque: false });
  });

  it.each([
    ["a UNC path written verbatim", "\\\\?\\UNC\\server\\share\\x"],
    ["a raw device", "\\\\.\\PhysicalDrive0"],
    ["a volume by its GUID", "\\\\?\\Volume{26a21bda-a627-11d7-9931-806e6f6e6963}\\x"],
    ["the object manager's root", "\\\\?\\GLOBALROOT\\Device\\HarddiskVolume1\\x"],
    ["a drive-relative path on another drive", "D:secrets\\key.pem"],
  ])("reads a Windows path it cannot place as opaque: %s", (_label, path) => {
    expect(pathForms(path, windows).opaque).toBe(true);
  });

  it("also reads a file: URL as the path it names, decoded", () => {
    expect(pathForms("file:///etc/%70asswd", context()).forms).toEqual(["/home/u/proj/file:/etc/%70asswd", "/etc/passwd"]);
    expect(pathForms("file://evil.example/etc/passwd", context()).opaque).toBe(true);
    expect(pathForms("file:///etc%2fpasswd", context()).opaque).toBe(true);
  });

  it("also reads a path trimmed, for a deny, as a tool that trims it would", () => {
    const forms = pathForms(" /etc/passwd\n", context());
    expect(forms.forms).toContain("/etc/passwd");
    expect(forms.opened).toEqual([["", "home", "u", "proj", " ", "etc", "passwd\n"]]);
  });
});
