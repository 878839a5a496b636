import { expect, test } from "bun:test";
import { createLogger, formatFor } from "../src/log.ts";

test("pretty lines read as time, level, message and key=value, with secrets redacted as in JSON", () => {
  const lines: string[] = [];
  const log = createLogger({ format: "pretty", write: (line) => void lines.push(line) }).child({ component: "vault" });
  log.warn("token refused", { password: "hunter2", authorization: "Bearer abc", path: "/a b", status: 401, nested: { apiKey: "k" } });
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^\d\d:\d\d:\d\d\.\d{3} WARN  token refused  component=vault password=\[REDACTED\] authorization=\[REDACTED\] path="\/a b" status=401 nested=\{"apiKey":"\[REDACTED\]"\}\n$/);
});

test("auto is pretty at a terminal and JSON lines anywhere else", () => {
  expect(formatFor("auto", true)).toBe("pretty");
  expect(formatFor("auto", false)).toBe("json");
  expect(formatFor("json", true)).toBe("json");
  const lines: string[] = [];
  createLogger({ format: "json", write: (line) => void lines.push(line) }).info("hello", { n: 1 });
  expect(JSON.parse(lines[0]!)).toMatchObject({ level: "info", message: "hello", n: 1 });
});

test("to stderr, the lines of one turn go out together at its end, and an error line at once with those before it", async () => {
  // A child process, so that its stderr is ours to read: two info lines, an error, then two more.
  const script = `
    import { createLogger } from ${JSON.stringify(`${import.meta.dir}/../src/log.ts`)};
    const log = createLogger({ format: "json" });
    log.info("one"); log.info("two");
    log.error("three");
    log.info("four"); log.info("five");
  `;
  const child = Bun.spawn(["bun", "-e", script], { stderr: "pipe", stdout: "ignore" });
  const [text] = await Promise.all([new Response(child.stderr).text(), child.exited]);
  expect(text.trim().split("\n").map((line) => JSON.parse(line).message)).toEqual(["one", "two", "three", "four", "five"]);
});
