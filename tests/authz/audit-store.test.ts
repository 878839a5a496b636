/**
 * The audit trail in the store, on SQLite and PostgreSQL: decisions made through real requests on the platform's
 * agent (mTLS, the shipped policy) land in `authz_audit` with every field; a batch delivered again after a commit
 * whose answer was lost is not stored twice; what PostgreSQL cannot hold does not stop the trail; and
 * `platform audit` reads it back, filtered, as a table or JSON lines.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { auditTransport } from "../../src/authz/audit/destination.ts";
import { AuditLog, type AuditRecord } from "../../src/authz/audit/log.ts";
import { insertAuditRecords, listAuditRecords } from "../../src/authz/audit/repo.ts";
import { storeTransport } from "../../src/authz/audit/store.ts";
import { startPlatformAgent } from "../a2a/support.ts";
import { runPlatform } from "../support/cli.ts";
import { openStoreOf, stores, storesForFile } from "../support/stores.ts";
import { tempDir } from "../support/temp.ts";
import { planner, quiet, reporter } from "./support.ts";

const fixture = storesForFile();
const dir = tempDir();
afterAll(() => dir.remove());
let dataDirs = 0;

const record = (overrides: Partial<AuditRecord> = {}): AuditRecord => ({
  timestamp: new Date().toISOString(),
  audit_id: crypto.randomUUID(),
  caller_spiffe_id: planner,
  callee_spiffe_id: null,
  action: "task.send",
  decision: "allowed",
  reason: "allowed: caller capability",
  policy_version: "v1",
  context: { taskType: "health" },
  ...overrides,
});

describe.each(stores)("on %s", (kind) => {
  test("decisions made through real requests land in authz_audit with every field (the default destination on PostgreSQL)", async () => {
    const store = await fixture.fresh(kind);
    const dataDir = `${dir.path}/data-${++dataDirs}`;
    // On SQLite the default stays the file, so the store is named; on PostgreSQL the default is tried.
    const destination: Record<string, string> = kind === "sqlite" ? { PLATFORM_AUTHORIZATION__AUDIT__DESTINATION: "store://" } : {};
    const agent = await startPlatformAgent({ PLATFORM_DATA_DIR: dataDir, ...store.env, ...destination });
    const node = agent.runtime.actors.node;
    const authorization = agent.runtime.health.report().subsystems.authorization as unknown as { policyVersion: string; audit: { destination: string } };
    expect(authorization.audit.destination).toBe("store://");

    const send = async (caller: string, marker: string) => {
      const response = await (await agent.identity(caller))(`${agent.mtlsUrl}/rpc`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "task.send", params: { type: "health", metadata: { marker } } }),
      });
      return (await response.json()) as { result?: { state: string }; error?: { data?: { auditId?: string } } };
    };
    const before = Date.now();
    const allowed = await send(planner, "from-planner");
    const denied = await send(reporter, "from-reporter");
    expect(allowed.result?.state).toBe("completed");
    const deniedId = denied.error?.data?.auditId;
    expect(deniedId).toBeString();
    // Closing delivers whatever the audit buffer still holds.
    await agent.close();

    const database = await openStoreOf(dataDir, store.env);
    try {
      const records = await listAuditRecords(database.db, { limit: 100 });
      const sent = records.filter((r) => r.action === "task.send");
      expect(sent).toHaveLength(2);
      const mine = sent.find((r) => r.decision === "allowed")!;
      expect(Date.parse(mine.timestamp)).toBeGreaterThanOrEqual(before - 5);
      expect(Date.parse(mine.timestamp)).toBeLessThanOrEqual(Date.now());
      expect(mine).toEqual({
        timestamp: mine.timestamp,
        audit_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        node,
        caller_spiffe_id: planner,
        callee_spiffe_id: null,
        action: "task.send",
        decision: "allowed",
        reason: "allowed: caller capability",
        policy_version: authorization.policyVersion,
        context: { method: "task.send", taskType: "health", metadata: { marker: "from-planner" } },
        // The rest of the policy's answer, kept as given: jsonb and SQLite's JSON text give back the same.
        result: expect.objectContaining({
          direct_grant: true,
          decision_metadata: { policy: "platform.authz", action: "task.send", data_classification: "public", delegated_by: null, same_trust_domain: true },
        }),
      });
      expect(sent.find((r) => r.decision === "denied")).toEqual({
        timestamp: expect.any(String),
        audit_id: deniedId!,
        node,
        caller_spiffe_id: reporter,
        callee_spiffe_id: null,
        action: "task.send",
        decision: "denied",
        reason: expect.stringMatching(/^denied: .*\(task\.send\)$/),
        policy_version: authorization.policyVersion,
        context: { method: "task.send", taskType: "health", metadata: { marker: "from-reporter" } },
        result: expect.objectContaining({ decision_metadata: expect.objectContaining({ action: "task.send" }) }),
      });
      // The mTLS handshakes and the card reads are decisions too, and were stored alongside.
      expect(records.every((r) => r.node === node)).toBe(true);
    } finally {
      await database.close();
    }
  });

  test("the default destination: the store on PostgreSQL (several nodes), the data dir's file on SQLite", async () => {
    const database = await (await fixture.fresh(kind)).open();
    try {
      const { description } = auditTransport("", { dataDir: dir.path, log: quiet, database, node: "n" });
      expect(description).toBe(kind === "postgresql" ? "store://" : `file://${dir.path}/audit.jsonl`);
    } finally {
      await database.close();
    }
  });

  test("a batch delivered again after its commit's answer was lost is stored once", async () => {
    const database = await (await fixture.fresh(kind)).open();
    try {
      const transport = storeTransport(database, "node-a");
      let answers = 0;
      // The first delivery commits, then fails as a connection lost before the answer would.
      const flaky = {
        ...transport,
        async deliver(records: readonly AuditRecord[]) {
          await transport.deliver(records);
          if (answers++ === 0) throw new Error("connection closed before the commit was answered");
        },
      };
      const log = new AuditLog(flaky, { capacity: 100, log: quiet, firstRetryMs: 60_000 });
      const sent = [record(), record({ decision: "denied", reason: "denied: no policy rule allows it (task.send)" }), record()];
      for (const r of sent) log.write(r);
      // A flush waits for the attempt under way (it fails) and makes another (it is answered).
      await log.flush();
      expect(log.stats()).toMatchObject({ written: 3, pending: 0, dropped: 0, failedAttempts: 1 });
      expect(answers).toBe(2);
      await log.close();
      const stored = await listAuditRecords(database.db, { limit: 10 });
      expect(stored.map((r) => r.audit_id).sort()).toEqual(sent.map((r) => r.audit_id).sort());
      expect(stored.find((r) => r.audit_id === sent[1]!.audit_id)).toEqual({ ...sent[1]!, node: "node-a" });
    } finally {
      await database.close();
    }
  });

  test("text PostgreSQL cannot hold (NUL, a lone surrogate) is stored replaced there, as is in SQLite, and the records behind it follow", async () => {
    const database = await (await fixture.fresh(kind)).open();
    try {
      const odd = record({ reason: "denied: bad\u0000name", context: { ["key\u0000"]: "half \ud800 pair", list: ["\u0000"] } });
      const next = record();
      await insertAuditRecords(database.db, "n", [odd, next]);
      const stored = await listAuditRecords(database.db, { limit: 10 });
      expect(stored.find((r) => r.audit_id === odd.audit_id)).toMatchObject(
        kind === "postgresql"
          ? { reason: "denied: bad\uFFFDname", context: { ["key\uFFFD"]: "half \uFFFD pair", list: ["\uFFFD"] } }
          : { reason: "denied: bad\u0000name", context: { ["key\u0000"]: "half \ud800 pair", list: ["\u0000"] } },
      );
      expect(stored.map((r) => r.audit_id)).toContain(next.audit_id);
    } finally {
      await database.close();
    }
  });

  test("platform audit lists the stored decisions newest first, filtered, as a table or JSON lines", async () => {
    const store = await fixture.fresh(kind);
    const dataDir = `${dir.path}/data-${++dataDirs}`;
    const database = await openStoreOf(dataDir, store.env);
    const ago = (ms: number) => new Date(Date.now() - ms).toISOString();
    const old = record({ timestamp: ago(3 * 3_600_000) });
    const recentDenied = record({ timestamp: ago(60_000), caller_spiffe_id: reporter, decision: "denied", reason: "denied: no policy rule allows it (task.send)" });
    const newest = record({ timestamp: ago(1000), context: { taskType: "add" } });
    try {
      await insertAuditRecords(database.db, "node-a", [old, newest]);
      await insertAuditRecords(database.db, "node-b", [recentDenied]);
    } finally {
      await database.close();
    }
    const audit = (args: string[], env: Record<string, string> = {}) =>
      runPlatform(["audit", "--data-dir", dataDir, ...args], { env: { ...store.env, PLATFORM_AUTHORIZATION__AUDIT__DESTINATION: "store://", ...env } });
    const lines = (stdout: string) => stdout.trim().split("\n").filter(Boolean).map((line) => JSON.parse(line));

    const all = await audit(["--json"]);
    expect(all.code).toBe(0);
    expect(all.stderr).toBe("");
    expect(lines(all.stdout)).toEqual([
      { ...newest, node: "node-a" },
      { ...recentDenied, node: "node-b" },
      { ...old, node: "node-a" },
    ]);
    expect(lines((await audit(["--json", "--since", "2h"])).stdout).map((r) => r.audit_id)).toEqual([newest.audit_id, recentDenied.audit_id]);
    expect(lines((await audit(["--json", "--decision", "denied"])).stdout).map((r) => r.audit_id)).toEqual([recentDenied.audit_id]);
    expect(lines((await audit(["--json", "--limit", "1"])).stdout).map((r) => r.audit_id)).toEqual([newest.audit_id]);

    const table = await audit(["--since", "5m"]);
    expect(table.code).toBe(0);
    const [header, first, second, ...rest] = table.stdout.trimEnd().split("\n");
    expect(header).toMatch(/^TIME +NODE +DECISION +ACTION +CALLER +CALLEE +REASON$/);
    expect(first).toMatch(new RegExp(`^${newest.timestamp} +node-a +allowed +task\\.send +${planner} +- +allowed: caller capability$`));
    expect(second).toMatch(new RegExp(`^${recentDenied.timestamp} +node-b +denied +task\\.send +${reporter} +- +denied: no policy rule`));
    expect(rest).toEqual([]);

    // Settings under which nodes audit elsewhere: said, and what is stored is listed all the same.
    const elsewhere = await audit(["--json", "--limit", "1"], { PLATFORM_AUTHORIZATION__AUDIT__DESTINATION: "" });
    expect(elsewhere.code).toBe(0);
    expect(lines(elsewhere.stdout)).toHaveLength(1);
    if (kind === "sqlite") expect(elsewhere.stderr).toContain("note: with these settings nodes audit to the data dir's audit.jsonl, not to the store");
    else expect(elsewhere.stderr).toBe("");

    for (const [args, message] of [
      [["--since", "yesterday"], "--since takes a duration such as 30s, 15m, 2h or 7d, not 'yesterday'"],
      [["--decision", "maybe"], "--decision is allowed or denied, not 'maybe'"],
      [["--limit", "0"], "--limit takes a whole number from 1 to 10000, not '0'"],
    ] as const) {
      const bad = await audit([...args]);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain(message);
    }
  });
});
