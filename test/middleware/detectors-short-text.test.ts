/**
 * `scan` passes over the built-in detectors that a short ASCII text cannot hold a match of, from
 * one read of it. These tests hold that to what the detectors find when every one of them runs.
 */
import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { defaultDetectors, pattern, scan, type Detector } from "../../src/middleware/detectors.ts";

/** The default detectors as copies: `scan` knows only the built-in ones, so it runs each copy on every text. */
const everyDetector = (): Detector[] => defaultDetectors().map((d) => ({ ...d }));

/** Pieces of matches and of near misses, and the characters each detector's gate reads. */
const pieces = fc.constantFrom(
  " ",
  "\t",
  "\n",
  "=",
  ":",
  ",",
  ";",
  "|",
  ">",
  "<",
  '"',
  "'",
  "%",
  "&",
  "\\",
  ".",
  "-",
  "(",
  ")",
  "+",
  "/",
  "_",
  "@",
  "#",
  "0",
  "7",
  "12",
  "255",
  "415",
  "1111",
  "123456789",
  "ab",
  "Zq",
  "x",
  "B",
  "pwd",
  "PWD",
  "Pwd",
  "passwd",
  "password",
  "passphrase",
  "token",
  "api_key",
  "secret",
  "value=",
  "Bearer ",
  "Authorization: Basic ",
  "--token ",
  "%3D",
  "%40",
  "&#64;",
  "\\u0040",
  "example.com",
  "http://",
  "https://",
  "-----BEGIN RSA PRIVATE KEY-----",
  "MIIEowIBAAKCAQEA",
  "-----END RSA PRIVATE KEY-----",
  "10.0.0.1",
  "2001:db8::1",
  "4111 1111 1111 1111",
  "+1 415 555 0100",
  "AKIAIOSFODNN7EXAMPLE",
  "AKIAIOSFODNN7EXAMPLE,",
  "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
  "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8",
  "Qw3rTy7uIo9pAs2d",
  "hunter22",
  "abcdefghijkl",
  "sha512-",
);
const texts = fc.array(pieces, { maxLength: 30 }).map((parts) => parts.join(""));

describe("scan on short text", () => {
  test.prop([texts], { numRuns: 10000 })("finds what every detector run on the text finds", (text) => {
    expect(scan(text, defaultDetectors())).toEqual(scan(text, everyDetector()));
  });

  it("finds a password after its short name, in an element or URL-encoded", () => {
    for (const text of ["<pwd>hunter22</pwd>", "pwd%3Dhunter22", "x <PWD>hunter22</PWD> and more"]) {
      expect(
        scan(text, defaultDetectors()).map((d) => d.kind),
        text,
      ).toEqual(["secret"]);
      expect(scan(text, defaultDetectors())).toEqual(scan(text, everyDetector()));
    }
  });

  it("finds a value whose run goes on past a `=` after its name", () => {
    for (const text of ["Bearer example.com=", "Bearer Qw3rTy7uIo9p==", "token=Qw3rTy7uIo9pAs2d=="]) {
      expect(
        scan(text, defaultDetectors()).map((d) => d.kind),
        text,
      ).toEqual(["secret"]);
      expect(scan(text, defaultDetectors())).toEqual(scan(text, everyDetector()));
    }
  });

  it("finds an AWS secret key right after its key id", () => {
    for (const sep of [",", " ", "\t", ";", "|", ":", "="]) {
      const text = `AKIAIOSFODNN7EXAMPLE${sep}wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY`;
      expect(
        scan(text, defaultDetectors()).map((d) => d.kind),
        text,
      ).toEqual(["api_key", "secret"]);
      expect(scan(text, defaultDetectors())).toEqual(scan(text, everyDetector()));
    }
  });

  it("passes over the keys and values of a lock file with nothing to find", () => {
    for (const text of ["dependencies", "node_modules/@babel/core", "^7.22.13", "sha512-Zq12Ab34Cd56Ef78Gh90==", "MIT"])
      expect(scan(text, defaultDetectors()), text).toEqual([]);
  });

  it("runs a detector put in place of a built-in one in the same list", () => {
    const detectors = [...defaultDetectors()];
    expect(scan("TCK-123456", detectors)).toEqual([]);
    detectors[0] = pattern("ticket", /TCK-\d{6}/, { window: 10 });
    expect(scan("TCK-123456", detectors)).toEqual([{ kind: "ticket", start: 0, end: 10 }]);
  });
});
