import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createSocket } from "node:dgram";
import { mkdirSync, readFileSync, renameSync, rmdirSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { auditTransport } from "../../src/authz/audit/destination.ts";
import { AuditLog, type AuditRecord } from "../../src/authz/audit/log.ts";
import { AuthzConfigError } from "../../src/authz/errors.ts";
import { openDatabase, type DatabaseHandle } from "../../src/db/client.ts";
import { tempDir } from "../support/temp.ts";
import { quiet } from "./support.ts";

const dir = tempDir();
const cleanups: (() => unknown)[] = [];
// The store the transports are given (the store destination itself is tested in audit-store.test.ts).
let database: DatabaseHandle;
beforeAll(async () => {
  database = await openDatabase(join(dir.path, "platform.db"));
});
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  await database.close();
  dir.remove();
});
const setting = () => ({ dataDir: dir.path, log: quiet, database, node: "test-node" });

let n = 0;
const record = (decision: AuditRecord["decision"] = "denied"): AuditRecord => ({
  timestamp: new Date().toISOString(),
  audit_id: `id-${++n}`,
  caller_spiffe_id: "spiffe://platform.local/agent/a",
  callee_spiffe_id: null,
  action: "task.send",
  decision,
  reason: decision === "denied" ? "denied: action not permitted for caller" : "allowed: caller capability",
  policy_version: "abc",
  context: { data_classification: "internal", note: "héllo" },
});

const open = (destination: string, capacity = 100) => {
  const log = new AuditLog(auditTransport(destination, setting()), { capacity, log: quiet, firstRetryMs: 60_000 });
  cleanups.push(() => log.close());
  return log;
};

describe("file destination", () => {
  test("appends JSON lines that survive a restart, and a rename rotates the file", async () => {
    const path = join(dir.path, "logs", "audit.jsonl");
    const first = open(`file://${path}`);
    const a = record();
    first.write(a);
    await first.close();
    const second = open(`file://${path}`);
    const b = record("allowed");
    second.write(b);
    await second.flush();
    expect(readFileSync(path, "utf8").trim().split("\n").map((line) => JSON.parse(line))).toEqual([a, b]);

    renameSync(path, `${path}.1`);
    const c = record();
    second.write(c);
    await second.flush();
    expect(readFileSync(path, "utf8")).toBe(`${JSON.stringify(c)}\n`);
    expect(second.stats()).toMatchObject({ written: 2, pending: 0, failedAttempts: 0, dropped: 0 });
  });

  test("a destination that fails is retried from the buffer, and counted", async () => {
    const path = join(dir.path, "blocked.jsonl");
    mkdirSync(path); // a folder where the file should be: every append fails
    const log = open(`file://${path}`);
    const records = [record(), record(), record()];
    for (const r of records) log.write(r);
    await log.flush();
    expect(log.stats()).toMatchObject({ written: 0, pending: 3, dropped: 0 });
    expect(log.stats().failedAttempts).toBeGreaterThanOrEqual(1);
    expect(log.stats().lastError).toContain("EISDIR");
    rmdirSync(path);
    await log.flush();
    expect(log.stats()).toMatchObject({ written: 3, pending: 0 });
    expect(readFileSync(path, "utf8").trim().split("\n").map((l) => JSON.parse(l).audit_id)).toEqual(records.map((r) => r.audit_id));
  });

  test("the default destination on SQLite (one node) is audit.jsonl in the data dir", () => {
    expect(auditTransport("", setting()).description).toBe(`file://${join(dir.path, "audit.jsonl")}`);
  });
});

const rfc5424 = /^<(\d+)>1 (\S+) (\S+) platform (\d+) authz - \uFEFF(.*)$/s;

describe("syslog destination", () => {
  test("sends RFC 5424 messages over UDP", async () => {
    const socket = createSocket("udp4");
    const received: string[] = [];
    const two = Promise.withResolvers<void>();
    socket.on("message", (message) => received.push(message.toString("utf8")) === 2 && two.resolve());
    await new Promise<void>((resolve) => socket.bind(0, "127.0.0.1", resolve));
    cleanups.push(() => socket.close());
    const log = open(`syslog://127.0.0.1:${socket.address().port}`);
    const denied = record("denied");
    const allowed = record("allowed");
    log.write(denied);
    log.write(allowed);
    await two.promise;
    const [first, second] = received.map((m) => rfc5424.exec(m)!);
    expect(first![1]).toBe(String(13 * 8 + 5));
    expect(second![1]).toBe(String(13 * 8 + 6));
    expect(first![2]).toBe(denied.timestamp);
    expect(first![4]).toBe(String(process.pid));
    expect(JSON.parse(first![5]!)).toEqual(denied);
    expect(JSON.parse(second![5]!)).toEqual(allowed);
  });

  test("sends octet-counted RFC 5424 frames over TCP", async () => {
    const chunks: Buffer[] = [];
    const got = Promise.withResolvers<void>();
    const server = createServer((socket) =>
      socket.on("data", (chunk) => {
        chunks.push(Buffer.from(chunk));
        if (frames(Buffer.concat(chunks)).length === 3) got.resolve();
      }),
    );
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    cleanups.push(() => new Promise((resolve) => server.close(resolve)));
    const log = open(`syslog://127.0.0.1:${(server.address() as { port: number }).port}?transport=tcp`);
    const sent = [record(), record("allowed"), record()];
    for (const r of sent) log.write(r);
    await got.promise;
    const parsed = frames(Buffer.concat(chunks)).map((frame) => JSON.parse(rfc5424.exec(frame)![5]!));
    expect(parsed).toEqual(sent);
  });

  test("a syslog listener that is down is counted and the records wait", async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as { port: number }).port;
    await new Promise((resolve) => server.close(resolve));
    const log = open(`syslog://127.0.0.1:${port}?transport=tcp`);
    log.write(record());
    await log.flush();
    expect(log.stats()).toMatchObject({ written: 0, pending: 1, dropped: 0 });
    expect(log.stats().failedAttempts).toBeGreaterThanOrEqual(1);
  });
});

/** Splits RFC 6587 octet-counted frames (`<length> <message>`); an incomplete tail is left out. */
function frames(buffer: Buffer): string[] {
  const out: string[] = [];
  let at = 0;
  while (at < buffer.length) {
    const space = buffer.indexOf(0x20, at);
    if (space < 0) break;
    const length = Number(buffer.subarray(at, space).toString());
    if (space + 1 + length > buffer.length) break;
    out.push(buffer.subarray(space + 1, space + 1 + length).toString("utf8"));
    at = space + 1 + length;
  }
  return out;
}

describe("kafka destination", () => {
  // No Kafka broker can run here; an address nobody listens on stands for a broker that is down.
  test("a broker that is down: records are buffered, attempts counted, overflow dropped and counted", async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as { port: number }).port;
    await new Promise((resolve) => server.close(resolve));
    const log = open(`kafka://127.0.0.1:${port}/platform-audit`, 3);
    for (let i = 0; i < 5; i++) log.write(record());
    // write() returned before any attempt to reach the broker was made: records wait in the buffer.
    expect(log.stats()).toMatchObject({ written: 0, pending: 3, dropped: 2, failedAttempts: 0 });
    await log.flush();
    const stats = log.stats();
    expect(stats).toMatchObject({ destination: `kafka://127.0.0.1:${port}/platform-audit`, written: 0, pending: 3, dropped: 2 });
    expect(stats.failedAttempts).toBeGreaterThanOrEqual(1);
    expect(stats.lastError).toBeTruthy();
  });
});

describe("destination syntax", () => {
  for (const bad of ["ftp://x", "syslog://nohost", "syslog://h:99999", "syslog://h:514?transport=quic", "kafka://h:9092", "kafka://h:9092/bad topic", "file://", "store://db.internal/audit", "store"])
    test(`refuses ${bad}`, () => {
      expect(() => auditTransport(bad, setting())).toThrow(AuthzConfigError);
    });
  test("says what is wrong and what it takes", () => {
    expect(() => auditTransport("store://db.internal/audit", setting())).toThrow(
      `authorization.audit.destination "store://db.internal/audit": store:// names no place of its own: it is the store this node uses (database.url, else the data dir's SQLite file)`,
    );
    expect(() => auditTransport("postgres://db/audit", setting())).toThrow(
      `authorization.audit.destination "postgres://db/audit": use file://<path>, syslog://host:port[?transport=tcp], kafka://host:port/topic or store://`,
    );
  });
});

test("a closed log counts what it could not deliver", async () => {
  const path = join(dir.path, "closed-blocked.jsonl");
  mkdirSync(path);
  const log = open(`file://${path}`);
  log.write(record());
  await log.close();
  log.write(record());
  expect(log.stats()).toMatchObject({ written: 0, pending: 0, dropped: 2 });
});
