import { describe, expect, it } from "vitest";
import { createRedactor } from "../../src/middleware/redactor.ts";
import { budgetMs, cpuMs, timed } from "../support/timing.ts";
import {
  apiKey,
  creditCard,
  defaultDetectors,
  email,
  entropy,
  highEntropy,
  ipv4,
  ipv6,
  luhn,
  partialStart,
  pattern,
  phone,
  scan,
  windowOf,
} from "../../src/middleware/detectors.ts";

const found = (text: string, detectors = defaultDetectors()) => scan(text, detectors).map((d) => `${d.kind}:${text.slice(d.start, d.end)}`);

describe("detectors", () => {
  it("find emails, Luhn-valid card numbers, phone numbers and IPv4 and IPv6 addresses", () => {
    expect(found("mail bob.smith+tag@mail.example.co.uk today")).toEqual(["email:bob.smith+tag@mail.example.co.uk"]);
    expect(found("card 4111 1111 1111 1111, or 4111-1111-1111-1111")).toEqual([
      "credit_card:4111 1111 1111 1111",
      "credit_card:4111-1111-1111-1111",
    ]);
    expect(found("call +1 415 555 0100 or (415) 555-0100")).toEqual(["phone:+1 415 555 0100", "phone:(415) 555-0100"]);
    expect(found("hosts 10.0.0.1, 2001:db8::ff00:42:8329 and ::ffff:192.0.2.128.")).toEqual([
      "ip_address:10.0.0.1",
      "ip_address:2001:db8::ff00:42:8329",
      "ip_address:::ffff:192.0.2.128",
    ]);
  });

  it("find API keys by their prefixes", () => {
    const keys = [
      "sk-proj-abcdefghijklmnopqrstuvwxyz0123",
      "sk_live_abcdefghijklmnop1234",
      "ghp_" + "A1b2".repeat(9),
      "github_pat_" + "a1B2_".repeat(5),
      "AKIAIOSFODNN7EXAMPLE",
      "xoxb-123456789012-abcdefghij",
      "AIza" + "x".repeat(35),
      "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    ];
    for (const key of keys) expect(found(`key=${key} ok`, [apiKey])).toEqual([`api_key:${key}`]);
  });

  it("find random-looking tokens but leave identifiers, hex hashes, UUIDs and plain numbers alone", () => {
    expect(found("token Zm9vYmFyQmF6cXV4MTIzNDU2Nzg5MGFi end", [highEntropy()])).toEqual(["secret:Zm9vYmFyQmF6cXV4MTIzNDU2Nzg5MGFi"]);
    const harmless =
      "getUserAccountById2024Handler 3f786850e387550fdab836ed7e6dc881de23001b 550e8400-e29b-41d4-a716-446655440000 1700000000123 2024-01-15 call_1";
    expect(found(harmless)).toEqual([]);
  });

  it("reject near misses: a card number failing Luhn, an octet over 255, a time, a MAC address, C++ scopes", () => {
    expect(found("4111 1111 1111 1112 192.168.1.300 12:30:45 aa:bb:cc:dd:ee:ff std::vector a::b")).toEqual([]);
  });

  it("resolve overlaps: leftmost wins, then longest, then the detector listed first", () => {
    const both = [pattern("short", /abc/), pattern("long", /abcdef/)];
    expect(found("xabcdefx", both)).toEqual(["long:abcdef"]);
    expect(found("xabcx", [pattern("a", /abc/), pattern("b", /abc/)])).toEqual(["a:abc"]);
  });

  it("merge overlapping matches into one span, so no part of either is left out, and name every kind in it", () => {
    const broad = [...defaultDetectors(), highEntropy()];
    expect(scan("/home/alice/x9Kq2LmP7zR4/bob.smith@example.com", broad)).toEqual([{ kind: "secret", start: 0, end: 46, also: ["email"] }]);
    expect(found("GET /var/lib/app/sessions/Xk9mQ2pL7rT4vW8zB1cD5/4111 1111 1111 1111 ok", broad)).toEqual([
      "secret:/var/lib/app/sessions/Xk9mQ2pL7rT4vW8zB1cD5/4111 1111 1111 1111",
    ]);
  });

  it("try again one character on after a rejected candidate: a card after a stray digit is found", () => {
    // "5 4111 1111 1111 1111" is one 17-digit candidate failing Luhn; the card starts at the 4.
    expect(found("call 5 4111 1111 1111 1111")).toEqual(["credit_card:4111 1111 1111 1111"]);
  });

  it("try again past a whole character after a rejected candidate of a unicode pattern: no endless loop on an emoji", () => {
    const emoji = pattern("emo", /\p{Extended_Pictographic}\d+/u, { validate: (m) => m.length > 10 });
    expect(scan("see 😀12 ok", [emoji])).toEqual([]);
    expect(scan("😀😀", [pattern("empty", /(?:)/u)])).toEqual([]);
  });

  it("scan from an offset with the text before it as look-behind context only", () => {
    const text = "k=Zm9vYmFyQmF6cXV4MTIz/4111 1111 1111 1111";
    // From 18, "MTIz/4111" would look like the start of a token were the text before it not context.
    const broad = [...defaultDetectors(), highEntropy()];
    expect(scan(text, broad, 18)).toEqual(scan(text, broad));
    expect(scan("x bob@example.com", [email], 3)).toEqual([]); // the match starts before the offset
  });

  it("say where an unfinished JWT starts at the end of a text, and nothing when none does", () => {
    expect(partialStart("token: eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIx", defaultDetectors())).toBe(7);
    expect(partialStart("token: eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIx.abc done", defaultDetectors())).toBeUndefined();
    expect(() => pattern("x", /a/, { partial: /a/ })).toThrow(/partial must be a RegExp ending with \$/);
    expect(() => pattern("x", /a/, { partial: /a\$/ })).toThrow(/partial must be/); // a literal dollar
    expect(() => pattern("x", /a/, { partial: /a$/m })).toThrow(/partial must be/); // $ at every line end
    expect(pattern("x", /a/, { partial: /a$/ }).partial?.("ba", 0)).toBe(1);
  });

  it("scan megabytes in linear time (bounded quantifiers, no ReDoS)", () => {
    const hostile = "a".repeat(1_000_000) + "@" + "b.".repeat(200_000) + " " + "1 ".repeat(200_000) + ":".repeat(100_000);
    expect(cpuMs(() => scan(hostile, defaultDetectors()))).toBeLessThan(5_000);
  });

  it("reads a phone number only one way in a long run of digit groups (its cost is in benchmarks/)", () => {
    const crafted = " +1(1234)11111111111111111111a".repeat(2_000);
    expect(scan(crafted, defaultDetectors()).length).toBeGreaterThanOrEqual(0);
    expect(found("4111 1111 1111 1112 and +1 (415) 555-0100")).toEqual(["phone:+1 (415) 555-0100"]);
  });

  it("custom patterns: the g flag is added, empty matches are skipped, a validator filters, options are checked", () => {
    const ticket = pattern("ticket", /TCK-(\d{6})/, { validate: (m) => !m.endsWith("000000") });
    expect(found("TCK-123456 TCK-000000", [ticket])).toEqual(["ticket:TCK-123456"]);
    expect(found("abc", [pattern("empty", /x*/)])).toEqual([]);
    expect(() => pattern("", /x/)).toThrow(TypeError);
    expect(() => pattern("k", /x/, { window: 0 })).toThrow(/window/);
    expect(() => highEntropy({ minLength: 2 })).toThrow(/minLength/);
  });

  it("run custom patterns in linear time: a catastrophic pattern scans 10,000 hostile characters in under 50 ms", () => {
    for (const [regex, subject] of [
      [/(a+)+b/, `${"a".repeat(10_000)}!`],
      [/^(\w+\s?)*$/m, `${"word ".repeat(2_000)}!`],
      [/(x+x+)+y/i, "x".repeat(10_000)],
    ] as const) {
      const detector = pattern("hostile", regex);
      expect(timed(() => scan(subject, [detector]))).toBeLessThan(budgetMs);
    }
  });

  it("refuse at registration a custom pattern the linear-time engine cannot run, naming the detector", () => {
    expect(() => pattern("quoted", /(["'])\w+\1/)).toThrow(TypeError);
    expect(() => pattern("quoted", /(["'])\w+\1/)).toThrow(/pattern "quoted": .*back-reference/);
    expect(() => pattern("after", /(?<=id=)\d+/)).toThrow(/pattern "after": .*lookbehind/);
    expect(() => pattern("sticky", /a/y)).toThrow(/pattern "sticky": .*flag y/);
  });

  it("read a custom pattern's flags as JavaScript does", () => {
    expect(found("see tck-123456", [pattern("ticket", /TCK-\d{6}/i)])).toEqual(["ticket:tck-123456"]);
    expect(found("ok 😀😀 fine", [pattern("emoji", /\p{Extended_Pictographic}+/u)])).toEqual(["emoji:😀😀"]);
    expect(found("a\nb", [pattern("line", /^b$/m)])).toEqual(["line:b"]);
  });

  it("know how much a stream must hold back: the largest window", () => {
    expect(windowOf([email, creditCard, phone, ipv4, ipv6])).toBe(132);
    expect(windowOf([])).toBe(0);
  });

  it("compute Luhn checksums and entropy", () => {
    expect(luhn("79927398713")).toBe(true);
    expect(luhn("79927398710")).toBe(false);
    expect(luhn("12a4")).toBe(false);
    expect(entropy("aaaa")).toBe(0);
    expect(entropy("abcd")).toBe(2);
  });
});

describe("the default detectors, on everyday tool output", () => {
  it("leave hashes, ids, paths and URLs alone: git SHAs, integrity strings, UUIDs, docker digests, random temporary directories", () => {
    const everyday = [
      "https://github.com/o/r/blob/8d0a1b2c3d4e5f60718293a4b5c6d7e8f9012345/README.md",
      "integrity sha512-Zk9mQ2pL7rT4vW8zB1cD5yXk9mQ2pL7rT4vW8zB1cD5yXk9mQ2pL7rT4vW8zB1cD5yXk9mQ2pL7rT4vW8zB1cD5yA==",
      '"id": "550e8400-e29b-41d4-a716-446655440000"',
      "Digest: sha256:4f2c8b0a9e7d6c5b4a39281706f5e4d3c2b1a09f8e7d6c5b4a3928170f6e5d4c",
      "at /tmp/tmp.HbjuLwhvr3/node_modules/@vitest/runner/dist/index.js:1:2",
      "at /tmp/agent-onion-redis-Ab12Cd/x.ts:3:4",
      "/tmp/tmp.Xk9mQ2pL7r/repo/src/core/run.ts",
    ];
    for (const text of everyday) expect(found(text), text).toEqual([]);
  });

  it("read a log's timestamps, versions and decimal timestamps as what they are, not phone numbers", () => {
    for (const text of [
      "2024-01-15 10:00:00,123 INFO",
      "15.01.2024 10:00:00 start",
      "Chrome/120.0.6099.109",
      '"ts": "1700000000.12345"',
      "10:00:00.123456789",
    ])
      expect(found(text), text).toEqual([]);
    expect(found("call 415.555.0100 or 06.12.34.56.78")).toEqual(["phone:415.555.0100", "phone:06.12.34.56.78"]);
  });

  it("find card numbers only where issuers' numbers start (2 to 6): a millisecond timestamp or an id that passes Luhn is not one", () => {
    expect(found("id 1234567812345670 at 1700000000123, card 4012888888881881")).toEqual(["credit_card:4012888888881881"]);
  });

  it("read an SSH remote as a host and a path, not an address, and leave 0.0.0.0 and loopback addresses alone", () => {
    expect(found("origin git@github.com:octo/repo.git (fetch), ssh://git@gitlab.example.com:2222/g/r.git")).toEqual([]);
    expect(found("listening on 0.0.0.0:8080 and 127.0.0.1:9229, peer 203.0.113.9")).toEqual(["ip_address:203.0.113.9"]);
  });

  it("find a value by the name it is assigned to, not by its randomness alone", () => {
    const value = "Zf3D0LXCM3EIMbgJpUNnkRtOfOueHznB";
    for (const text of [
      `API_TOKEN=${value}`,
      `"client_secret": "${value}"`,
      `secret: ${value}`,
      `Authorization: Bearer ${value}`,
      `--token ${value}`,
      `getenv("api_token", "${value}")`,
    ])
      expect(found(text), text).toEqual([`secret:${value}`]);
    for (const text of [
      `ref ${value}`,
      `"next_page_token": "${value}"`,
      `"public_key": "${value}"`,
      `the token ${value}`,
      `/tmp/${value}/x`,
    ])
      expect(found(text), text).toEqual([]);
  });

  it("find an AWS secret access key next to its access key id, as the console's credentials file and CSV give them", () => {
    expect(found("AKIAIOSFODNN7EXAMPLE wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")).toEqual([
      "api_key:AKIAIOSFODNN7EXAMPLE",
      "secret:wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    ]);
    expect(found("deploy,AKIAZ7Q4XK2M9N3P5R6T,Xk9mQ2pL7rT4vW8zB1cD5yXk9mQ2pL7rT4vW8zB1\n")).toEqual([
      "api_key:AKIAZ7Q4XK2M9N3P5R6T",
      "secret:Xk9mQ2pL7rT4vW8zB1cD5yXk9mQ2pL7rT4vW8zB1",
    ]);
    expect(found("commit 3f786850e387550fdab836ed7e6dc881de23001b")).toEqual([]); // 40 hex characters with no key id before
  });

  it("find a known token whole however long, also right after a JSON or URL escape", () => {
    const long = "ghp_" + "A1b2".repeat(500);
    expect(found(`token ${long} end`)).toEqual([`api_key:${long}`]);
    const key = "sk-proj-" + "Xy9kQ2mN7pL4rT8vW1zB5cD3".repeat(2);
    expect(found(`{"log":"a\\n${key}\\n"}`)).toEqual([`api_key:${key}`]);
    expect(found(`q=%22${key}%22`)).toEqual([`api_key:${key}`]);
    expect(found(`{"k":"\\u0022${key}\\u0022"}`)).toEqual([`api_key:${key}`]);
  });

  it("find a known token inside a run after a character that is not a letter, as secretlint reads a token's start", () => {
    const key = "ghp_" + "A1b2".repeat(9);
    expect(found(`x_${key} v1/${key} 9${key}`)).toEqual([`api_key:${key}`, `api_key:${key}`, `api_key:${key}`]);
    expect(found(`prefix${key}`)).toEqual([]); // after a letter it is part of a word
  });

  it("leave placeholder and default passwords in URLs alone, and find real ones", () => {
    for (const url of [
      "https://user:password@example.com",
      "https://user:{PASS}@example.com",
      "https://u:YOUR_PASSWORD@example.com",
      "postgres://postgres:postgres@localhost/db",
      "https://u:xxxx@example.com",
    ])
      expect(found(url), url).toEqual([]);
    expect(found("https://user:pass@example.com ftp://deploy:Tr0ub4dor@ftp.example.com")).toEqual(["secret:pass", "secret:Tr0ub4dor"]);
  });

  it("find addresses with the at sign encoded for a URL, JSON or HTML", () => {
    expect(found("to=alice%40example.com&x=1 bob\\u0040example.org carol&#64;example.net")).toEqual([
      "email:alice%40example.com",
      "email:bob\\u0040example.org",
      "email:carol&#64;example.net",
    ]);
  });

  it("find Slack webhook URLs, private keys and passwords in URLs", () => {
    const hook = "https://hooks.slack.com/services/T0ABCDEF1/B0ABCDEF2/abcdefghijklmnopqrstuvwx";
    expect(found(`post to ${hook} now`)).toEqual([`api_key:${hook}`]);
    const pem = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n-----END OPENSSH PRIVATE KEY-----";
    expect(found(`key:\n${pem}\n`)).toEqual([`secret:${pem}`]);
    expect(found("postgres://app:s3cret-Pa55@db.internal:5432/app")).toEqual(["secret:s3cret-Pa55"]);
  });
});

describe("detectors, on text as a reader sees it", () => {
  const KEY = "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789";
  /** `text` with `invisible` after every `every` characters. */
  const spread = (text: string, invisible: string, every = 1) => text.match(new RegExp(`.{1,${every}}`, "g"))!.join(invisible);

  it("find a key with zero-width characters, word joiners, byte order marks or soft hyphens inside, as one api_key covering them", () => {
    for (const invisible of ["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad", "\u200b\u200d\u00ad"]) {
      for (const key of [
        spread(KEY, invisible, 4),
        spread(KEY, invisible),
        `s${invisible}${KEY.slice(1)}`,
        `${KEY.slice(0, 10)}${invisible}${KEY.slice(10)}`,
        spread("AKIAIOSFODNN7EXAMPLE", invisible, 4),
      ])
        expect(found(`key ${key} ok`), JSON.stringify(key)).toEqual([`api_key:${key}`]);
    }
  });

  it("leave invisible characters around a match out of it, and find it from an offset as from the start", () => {
    const text = `key \u200b${spread(KEY, "\u200d", 4)}\u200b, mail \ufeffbob@example.com\u202c`;
    expect(found(text)).toEqual([`api_key:${spread(KEY, "\u200d", 4)}`, "email:bob@example.com"]);
    expect(scan(text, defaultDetectors(), 5)).toEqual(scan(text, defaultDetectors()));
  });

  it("find an address, a card, a phone number and an IP address with zero-width characters inside", () => {
    expect(found("mail alice\u200b@example.com now")).toEqual(["email:alice\u200b@example.com"]);
    expect(found(`card ${spread("4111111111111111", "\u200b", 4)} now`)).toEqual([
      `credit_card:${spread("4111111111111111", "\u200b", 4)}`,
    ]);
    expect(found("call +1 415\u2060 555 0100 now")).toEqual(["phone:+1 415\u2060 555 0100"]);
    expect(found("host 10.0\u200b.0.1 now")).toEqual(["ip_address:10.0\u200b.0.1"]);
  });

  it("read no-break, narrow no-break and thin spaces as spaces: cards and phone numbers written with them are found, and Luhn still checks the digits", () => {
    for (const space of ["\u00a0", "\u202f", "\u2009", "\u2007"]) {
      expect(found(`card 4111${space}1111${space}1111${space}1111 now`)).toEqual([`credit_card:4111${space}1111${space}1111${space}1111`]);
      expect(found(`card 4111${space}1111${space}1111${space}1112 now`)).toEqual([]);
      expect(found(`call +1${space}415${space}555${space}0100 or +49${space}30${space}123456789`)).toEqual([
        `phone:+1${space}415${space}555${space}0100`,
        `phone:+49${space}30${space}123456789`,
      ]);
    }
  });

  it("leave amounts grouped in thousands by no-break, narrow no-break or thin spaces alone, as French, Russian and Polish write them, but find cards and phone numbers written with those spaces", () => {
    const formats = [
      ...["fr-FR", "ru-RU", "pl-PL"].map((locale) => new Intl.NumberFormat(locale)),
      new Intl.NumberFormat("fr-CH", { style: "currency", currency: "EUR" }),
    ];
    for (const format of formats) {
      for (const amount of [1_234_567_890, 987_654_321_012.75, 1_234_567_890_123, 4_111_111_111_111_111]) {
        const text = `Le chiffre d'affaires s'élève à ${format.format(amount)}.`;
        expect(found(text), text).toEqual([]);
      }
    }
    for (const space of ["\u00a0", "\u202f", "\u2009"]) {
      const g = (...groups: string[]) => groups.join(space);
      expect(found(`Le montant est de ${g("4", "111", "111", "111", "111", "111")} €.`)).toEqual([]);
      expect(found(`В 2023 году было ${g("1", "234", "567", "890", "123")} заявок`)).toEqual([]);
      // A plus sign, parentheses or groups of other lengths make a phone number or a card of it.
      const numbers = [
        g("+7", "912", "345", "678"),
        g("(495)", "123", "456"),
        g("06", "12", "34", "56", "78"),
        g("4111", "1111", "1111", "1111"),
      ];
      expect(found(`call ${numbers.join(", ")} now`)).toEqual([
        ...numbers.slice(0, 3).map((n) => `phone:${n}`),
        `credit_card:${numbers[3]}`,
      ]);
      // Nine digits in threes is a Spanish, Polish or Czech mobile number as often as an amount, and
      // no amount starts with 0: both are read as phone numbers.
      for (const mobile of [g("612", "345", "678"), g("600", "123", "456"), g("030", "123", "456")])
        expect(found(`llame al ${mobile}`)).toEqual([`phone:${mobile}`]);
    }
  });

  it("end an address where the script changes after its top-level domain: a Korean particle or a Russian word written right after it is left out", () => {
    expect(found("이메일은 bob@example.com입니다")).toEqual(["email:bob@example.com"]);
    expect(found("bob@example.com으로 연락하세요")).toEqual(["email:bob@example.com"]);
    expect(found("Пишите на bob@example.comили звоните")).toEqual(["email:bob@example.com"]);
    expect(found("info@пример.рф입니다, info@xn--e1afmkfd.xn--p1ai입니다, user@例え.jpです, x@y.日本です")).toEqual([
      "email:info@пример.рф",
      "email:info@xn--e1afmkfd.xn--p1ai",
      "email:user@例え.jp",
      "email:x@y.日本",
    ]);
    // A top-level domain of one script is still read whole, whatever its letters.
    expect(found("mail info@пример.рф, δοκιμή@παράδειγμα.δοκιμή, x@y.한국, y@z.みんな now")).toEqual([
      "email:info@пример.рф",
      "email:δοκιμή@παράδειγμα.δοκιμή",
      "email:x@y.한국",
      "email:y@z.みんな",
    ]);
    const hashed = createRedactor({ strategy: "hash" });
    expect(hashed.text("이메일은 bob@example.com입니다").value).toBe(`이메일은 ${hashed.text("bob@example.com").value}입니다`);
  });

  it("find internationalised addresses whole: Unicode letters in the local part and the domain, and punycode domains", () => {
    for (const address of [
      "alice@bücher.de",
      "jürgen@example.de",
      "info@пример.рф",
      "user@例え.jp",
      "δοκιμή@παράδειγμα.δοκιμή",
      "info@xn--e1afmkfd.xn--p1ai",
    ])
      expect(found(`mail ${address}, thanks`), address).toEqual([`email:${address}`]);
    expect(found("ü@ bob@ @example.com")).toEqual([]);
    // Chinese and Japanese put no spaces around an address: their words are not taken for part of it.
    expect(found("请联系bob@example.com谢谢")).toEqual(["email:bob@example.com"]);
    expect(found("メールはjürgen@bücher.deまで")).toEqual(["email:jürgen@bücher.de"]);
  });

  it("keep a key an api_key when a soft hyphen is inside it, so a block on api_key blocks it", () => {
    const r = createRedactor({ strategies: { api_key: "block" } });
    expect(r.text(`key ${KEY.slice(0, 10)}\u00ad${KEY.slice(10)}`).blocked).toEqual(["api_key"]);
    expect(r.text(`key ${spread(KEY, "\u200d", 4)}`).blocked).toEqual(["api_key"]);
  });

  it("say where a key or an address stuffed with invisible characters starts while it is unfinished, so a stream holds all of it", () => {
    const stuffed = spread("sk-ant-api03-AbCdEf", "\u200b\u200b\u200b");
    expect(partialStart(`key ${stuffed}`, defaultDetectors())).toBeLessThanOrEqual(4);
    expect(partialStart(`mail ${spread("alice.smith.from.accounting", "\u200d\u200d\u200d")}`, defaultDetectors())).toBeLessThanOrEqual(5);
    expect(partialStart(`key \u200b${"x ".repeat(100)}`, defaultDetectors())).toBeUndefined(); // invisible characters before the window hold nothing
  });

  // A bound that only a superlinear scan misses (the scan takes about half a second on a loaded 2-core machine), not a benchmark.
  it("scan a megabyte of invisible characters, Unicode spaces and international addresses in linear time", () => {
    const shapes = [
      "a\u200b",
      "4\u00a0",
      "\u200b",
      "\u00ad\u2060",
      "ü@",
      "x@пример.",
      "+1\u202f(2)\u200b",
      "sk-\u00ad",
      "eyJ\u200b",
      "jü.rg\u200ben",
    ];
    const hostile = shapes.map((s) => s.repeat(Math.ceil(100_000 / s.length))).join(" ");
    expect(hostile.length).toBeGreaterThan(1_000_000);
    expect(cpuMs(() => (scan(hostile, defaultDetectors()), partialStart(hostile, defaultDetectors())))).toBeLessThan(5_000);
  });
});
