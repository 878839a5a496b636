import { expect, test } from "bun:test";
import { Sanitizer } from "../../src/vault/sanitizer.ts";

const secret = "sk-live-8f2a9c1d7e6b5a4f3e2d1c0b";
const sanitizer = new Sanitizer([{ service: "pay", value: secret }, { service: "db", value: "p@ss w/rd&more" }], [
  { service: "gh", pattern: "ghp_[A-Za-z0-9]{36}" },
]);

function streamed(text: string, size: number): string {
  const redactor = sanitizer.redactor();
  const bytes = new TextEncoder().encode(text);
  const out: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; i += size) out.push(redactor.push(bytes.subarray(i, i + size)));
  out.push(redactor.end());
  return Buffer.concat(out).toString("utf8");
}

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
