import { describe, expect, test } from "bun:test";
import { encodedForms } from "../../src/vault/encodings.ts";
import { Sanitizer } from "../../src/vault/sanitizer.ts";
import { failOnStalls } from "../support/loop.ts";

failOnStalls();

const secret = "sk-live-8f2a9c1d7e6b5a4f3e2d1c0b";
const sanitizer = new Sanitizer([{ service: "pay", value: secret }, { service: "db", value: "p@ss w/rd&more" }], [
  { service: "gh", pattern: "ghp_[A-Za-z0-9]{36}" },
]);

const streamed = (text: string, size: number) => streamedWith(sanitizer, text, size);
/** The many cases of a property test take turns with the event loop, as a server's work would. */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

test("every encoding of a value is redacted and marked with its service", () => {
  const forms = [
    secret,
    Buffer.from(secret).toString("base64"),
    Buffer.from(secret).toString("base64url"),
    Buffer.from(secret).toString("hex"),
    Buffer.from(secret).toString("hex").toUpperCase(),
    encodeURIComponent("p@ss w/rd&more"),
    JSON.stringify("p@ss w/rd&more"),
  ];
  for (const form of forms) {
    const { text, services } = sanitizer.text(`before ${form} after`);
    expect(text).not.toContain(form.replaceAll('"', ""));
    expect(text).toMatch(/^before "?\[REDACTED:(pay|db)\]"? after$/);
    expect(services.length).toBe(1);
  }
});

test("a value inside a longer base64 text is found at each of the three alignments", () => {
  for (const prefix of ["", "a", "ab", "abc"]) {
    const encoded = Buffer.from(`${prefix}${secret}{"more":1}`).toString("base64");
    expect(sanitizer.text(encoded).text).toContain("[REDACTED:pay]");
  }
});

test("values split across chunk boundaries are found at every chunk size", () => {
  const text = `{"a":"${secret}","b":"${Buffer.from(secret).toString("base64")}","t":"ghp_${"x".repeat(36)}"}`;
  const whole = sanitizer.text(text).text;
  expect(whole).toBe(`{"a":"[REDACTED:pay]","b":"[REDACTED:pay]","t":"[REDACTED:gh]"}`);
  for (const size of [1, 2, 3, 7, 16, 64]) expect(streamed(text, size)).toBe(whole);
});

test("token shapes of configured services are redacted; other text passes unchanged, multibyte included", () => {
  const text = "token ghp_0123456789abcdefghijABCDEFGHIJ012345 ok; ghp_short stays; žluťoučký kůň";
  expect(sanitizer.text(text).text).toBe("token [REDACTED:gh] ok; ghp_short stays; žluťoučký kůň");
  expect(streamed("žluťoučký kůň ".repeat(50), 3)).toBe("žluťoučký kůň ".repeat(50));
});

test("overlapping matches collapse into one marker", () => {
  const sanitizer2 = new Sanitizer([{ service: "a", value: "abcdefgh" }, { service: "b", value: "efghijkl" }]);
  expect(sanitizer2.text("xxabcdefghijklxx").text).toBe("xx[REDACTED:a]xx");
});

/** Deterministic pseudo-random numbers, so a failure repeats. */
function random(seed: number): (below: number) => number {
  let state = seed;
  return (below) => {
    state = (Math.imul(state ^ (state >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) | 0;
    return (state >>> 0) % below;
  };
}

/** Every occurrence of every encoded form, found the slow way, merged where they touch. */
function slowRedact(text: string, secrets: { service: string; value: string }[]): string {
  const spans: [number, number][] = [];
  for (const { value } of secrets)
    for (const form of encodedForms(value))
      for (let at = text.indexOf(form); at >= 0; at = text.indexOf(form, at + 1)) spans.push([at, at + form.length]);
  spans.sort((a, b) => a[0] - b[0]);
  let out = "";
  let done = 0;
  for (let k = 0; k < spans.length; ) {
    const start = spans[k]![0];
    let end = spans[k]![1];
    for (k++; k < spans.length && spans[k]![0] <= end; k++) end = Math.max(end, spans[k]![1]);
    out += `${text.slice(done, start)}[R]`;
    done = end;
  }
  return out + text.slice(done);
}

const anyMarker = /\[REDACTED:[a-z0-9]+\]/g;

/** `text` pushed through a fresh redactor in chunks of `size` bytes. */
function streamedWith(using: Sanitizer, text: string, size: number): string {
  const redactor = using.redactor();
  const bytes = new TextEncoder().encode(text);
  const out: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; i += size) out.push(redactor.push(bytes.subarray(i, i + size)));
  out.push(redactor.end());
  return Buffer.concat(out).toString("utf8");
}

/** A body of JSON-like and base64-like filler with secrets, in their encoded forms, dropped in at random. */
function bodyWith(secrets: { value: string }[], seed: number, length: number): string {
  const next = random(seed);
  const filler = ['{"id":', "12345", ',"name":"', "repo", '"}\n', " ", "aGVsbG8gd29y", "0123456789abcdef", "/+=_-", "ü"];
  let text = "";
  while (text.length < length) {
    if (next(4) === 0) {
      const forms = encodedForms(secrets[next(secrets.length)]!.value);
      text += forms[next(forms.length)]!;
    } else text += filler[next(filler.length)]!;
  }
  return text;
}

describe("streamed redaction equals a slow search over every form", () => {
  const cases = {
    "long values (the scan jumps over text)": [
      { service: "a", value: "tok-7Hq2Lx9Pw4Zr" },
      { service: "b", value: "tok-7Hq2Lx9Pw4Zr-extended" }, // the one before is its prefix
      { service: "c", value: "overlapping-one" },
      { service: "d", value: "one-more-overlap" }, // shares "one" with the value before
      { service: "e", value: "x".repeat(40) },
    ],
    "short values too (the scan goes byte by byte)": [
      { service: "a", value: "pw12" },
      { service: "b", value: "pw123" },
      { service: "c", value: "tok-7Hq2Lx9Pw4Zr" },
    ],
  };
  for (const [name, secrets] of Object.entries(cases))
    test(name, async () => {
      const sanitizer = new Sanitizer(secrets);
      for (let seed = 1; seed <= 12; seed++) {
        await nextTurn();
        const text = bodyWith(secrets, seed, 600);
        const whole = sanitizer.text(text).text;
        expect(whole.replace(anyMarker, "[R]")).toBe(slowRedact(text, secrets));
        for (let size = 1; size <= 70; size++) expect(streamedWith(sanitizer, text, size)).toBe(whole);
      }
    });
});

test("a value is found wherever it sits relative to the scan's jumps and the chunk ends", () => {
  const value = "k3y-9f8e7d6c5b4a";
  const sanitizer = new Sanitizer([{ service: "pay", value }]);
  for (let offset = 0; offset < 80; offset++) {
    const text = `${"the quick brown fox. ".repeat(5).slice(0, offset)}${value}${" tail".repeat(4)}`;
    const expected = text.replace(value, "[REDACTED:pay]");
    for (const size of [1, 2, 3, 5, 8, 13, 16, 21, 64, 1000]) expect(streamedWith(sanitizer, text, size)).toBe(expected);
  }
});

test("adjacent and overlapping values are one marker at every chunk size", () => {
  const sanitizer2 = new Sanitizer([{ service: "a", value: "abcdefgh" }, { service: "b", value: "efghijkl" }]);
  for (const text of ["xxabcdefghijklxx", "xxabcdefghabcdefghxx", "xxabcdefghefghijklxx"])
    for (let size = 1; size <= text.length; size++) expect(streamedWith(sanitizer2, text, size)).toBe("xx[REDACTED:a]xx");
});

test("token shapes split across chunks are found at every chunk size, and each names its own service", () => {
  const shaped = new Sanitizer([], [
    { service: "stripe", pattern: "[sr]k_(live|test)_[A-Za-z0-9]{10,247}" },
    { service: "openai", pattern: "sk-(proj-|svcacct-)?[A-Za-z0-9_-]{20,}" },
    { service: "aws", pattern: "(AKIA|ASIA)[A-Z0-9]{16}" },
  ]);
  const text = `a sk_live_${"Ab1".repeat(5)} b sk-proj-${"x".repeat(24)}, c AKIA${"Z".repeat(16)}. d xAKIA${"Z".repeat(16)}`;
  const expected = "a [REDACTED:stripe] b [REDACTED:openai], c [REDACTED:aws]. d " + `xAKIA${"Z".repeat(16)}`;
  expect(shaped.text(text).text).toBe(expected);
  for (let size = 1; size <= text.length; size++) expect(streamedWith(shaped, text, size)).toBe(expected);
});

test("with token shapes as well, streaming at every chunk size gives what the whole text gives", async () => {
  const secrets = [
    { service: "pay", value: "tok-7Hq2Lx9Pw4Zr" },
    { service: "gh", value: `ghp_${"Q".repeat(36)}` }, // a value that also has a shape
  ];
  const shaped = new Sanitizer(secrets, [
    { service: "gh", pattern: "gh[pousr]_[A-Za-z0-9]{36,251}" },
    { service: "aws", pattern: "(AKIA|ASIA)[A-Z0-9]{16}" },
  ]);
  const tokens = [`ghp_${"a1".repeat(18)}`, `AKIA${"B2".repeat(8)}`, `xAKIA${"B2".repeat(8)}`, `ghp_${"Q".repeat(36)}`, "tok-7Hq2Lx9Pw4Zr"];
  for (let seed = 1; seed <= 8; seed++) {
    await nextTurn();
    const next = random(seed);
    let text = bodyWith(secrets, seed, 300);
    for (let k = 0; k < 6; k++) {
      const at = next(text.length);
      // Mostly set apart as a word, sometimes glued to the text around (then no shape applies).
      const token = tokens[next(tokens.length)]!;
      text = text.slice(0, at) + (next(3) ? ` ${token}, ` : token) + text.slice(at);
    }
    const whole = shaped.text(text).text;
    for (const token of tokens.slice(0, 2)) expect(whole).not.toContain(` ${token}, `);
    for (let size = 1; size <= 70; size++) expect(streamedWith(shaped, text, size)).toBe(whole);
  }
});

test("past the longest held run of token characters, a shape still needs a word boundary before it", () => {
  const glued = `${"a".repeat(5000)}ghp_${"x".repeat(36)} end`;
  expect(sanitizer.text(glued).text).toBe(glued);
  for (const size of [1, 7, 4096, 5000]) expect(streamed(glued, size)).toBe(glued);
});

describe("values written with escapes", () => {
  const hex = (byte: number) => byte.toString(16).padStart(2, "0");
  const chars = [...secret];
  // Each a way an upstream may write the value: every byte escaped, some of them, in either case.
  const escaped: Record<string, string> = {
    "every byte percent-encoded": [...Buffer.from(secret)].map((b) => `%${hex(b)}`).join(""),
    "every byte percent-encoded, upper case": [...Buffer.from(secret)].map((b) => `%${hex(b).toUpperCase()}`).join(""),
    "some bytes percent-encoded": chars.map((c, i) => (i % 3 ? c : `%${hex(c.charCodeAt(0))}`)).join(""),
    "JSON \\u escapes": chars.map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`).join(""),
    "JSON \\u escapes, some, upper case": chars.map((c, i) => (i % 2 ? c : `\\u00${hex(c.charCodeAt(0)).toUpperCase()}`)).join(""),
    "HTML decimal references": chars.map((c) => `&#${c.charCodeAt(0)};`).join(""),
    "HTML hex references, some": chars.map((c, i) => (i % 2 ? `&#x${hex(c.charCodeAt(0))};` : c)).join(""),
    "HTML named references": "p&commat;ss w&sol;rd&amp;more",
    "percent-encoded base64": encodeURIComponent(Buffer.from(secret).toString("base64")).replace(/[A-Za-z]/g, (c) => `%${hex(c.charCodeAt(0))}`),
    "base64 of base64": Buffer.from(`{"data":"${Buffer.from(secret).toString("base64")}"}`).toString("base64"),
    "base64 of base64, shifted": Buffer.from(`xy{"data":"${Buffer.from(secret).toString("base64")}"}`).toString("base64"),
  };
  for (const [name, form] of Object.entries(escaped))
    test(`${name}: redacted whole and at every chunk size`, () => {
      const text = `before ${form} after`;
      const whole = sanitizer.text(text).text;
      expect(whole).toMatch(/^before [^ ]*\[REDACTED:(pay|db)\][^ ]* after$/);
      for (let size = 1; size <= text.length; size += size < 16 ? 1 : 7) expect(streamed(text, size)).toBe(whole);
    });

  test("escapes that stand for no secret pass unchanged, half-written ones included", () => {
    const text = 'a 50%25 off &amp; more \\n "quoted \\"x\\"" \\u00e9t\\u00e9 &#233; &unknown; %zz \\q &#x; tail %4';
    expect(sanitizer.text(text).text).toBe(text);
    for (let size = 1; size <= 9; size++) expect(streamed(text, size)).toBe(text);
  });

  test("any mixture of escapes leaves no way to read the value back, and streaming gives what the whole text gives", async () => {
    /** Undoes every escape the sanitizer understands, so what is left can be searched for the plain value. */
    const decodeAll = (text: string) =>
      text
        .replace(/%([0-9a-f]{2})/gi, (_, h: string) => String.fromCharCode(parseInt(h, 16)))
        .replace(/\\u([0-9a-f]{4})/gi, (_, h: string) => String.fromCharCode(parseInt(h, 16)))
        .replace(/&#x([0-9a-f]+);/gi, (_, h: string) => String.fromCharCode(parseInt(h, 16)))
        .replace(/&#(\d+);/g, (_, d: string) => String.fromCharCode(Number(d)));
    const writers = [
      (c: string) => c,
      (c: string) => `%${hex(c.charCodeAt(0))}`,
      (c: string) => `%${hex(c.charCodeAt(0)).toUpperCase()}`,
      (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
      (c: string) => `&#${c.charCodeAt(0)};`,
      (c: string) => `&#X${hex(c.charCodeAt(0))};`,
    ];
    for (let seed = 1; seed <= 40; seed++) {
      await nextTurn();
      const next = random(seed);
      const value = next(2) ? secret : Buffer.from(secret).toString("base64");
      const mixed = [...value].map((c) => writers[next(writers.length)]!(c)).join("");
      const text = `{"id":${seed},"x":"${mixed}","tail":"50%25 &amp; done"}`;
      const whole = sanitizer.text(text).text;
      expect(decodeAll(whole)).not.toContain(secret);
      expect(decodeAll(whole)).not.toContain(Buffer.from(secret).toString("base64"));
      expect(whole).toEndWith(',"tail":"50%25 &amp; done"}');
      for (const size of [1, 2, 3, 5, 8, 13, 64]) expect(streamed(text, size)).toBe(whole);
    }
  });
});
