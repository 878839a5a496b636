import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { A2AAuthorizationError, A2AClient, peerMatches, RpcCode, type A2AServer } from "../../src/a2a/index.ts";
import type { AuthzContext, AuthzDecision, AuthzEnforcer, ClientTls, IdentityProvider } from "../../src/authz/model.ts";
import { call, startAgent } from "./support.ts";

/** A small real enforcer: first matching rule wins, nothing matching denies. */
class RuleEnforcer implements AuthzEnforcer {
  readonly seen: { direction: string; caller?: string; callee?: string; action: string; context?: AuthzContext }[] = [];
  constructor(readonly rules: { caller?: string; callee?: string; action: string; taskType?: string; allow: boolean }[]) {}

  async checkInbound(callerId: string | undefined, action: string, context?: AuthzContext) {
    this.seen.push({ direction: "in", caller: callerId, action, context });
    return this.#decide(callerId, undefined, action, context);
  }

  async checkOutbound(callerId: string, calleeId: string, action: string, context?: AuthzContext) {
    this.seen.push({ direction: "out", caller: callerId, callee: calleeId, action, context });
    return this.#decide(callerId, calleeId, action, context);
  }

  #decide(caller: string | undefined, callee: string | undefined, action: string, context?: AuthzContext): AuthzDecision {
    const rule = this.rules.find(
      (r) =>
        r.action === action &&
        (r.caller === undefined || r.caller === caller) &&
        (r.callee === undefined || r.callee === callee) &&
        (r.taskType === undefined || r.taskType === context?.taskType),
    );
    return Object.freeze({ allowed: rule?.allow ?? false, reason: rule ? (rule.allow ? "rule allows" : "rule denies") : "no rule allows", auditId: crypto.randomUUID() });
  }
}

const planner = "spiffe://test.local/agent/planner";
const intruder = "spiffe://test.local/agent/intruder";
const ran: string[] = [];
let server: A2AServer;
let url = "";
const enforcer = new RuleEnforcer([
  { caller: planner, action: "task.send", taskType: "echo", allow: true },
  { caller: planner, action: "task.status", allow: true },
  { caller: planner, action: "task.send", taskType: "admin", allow: true },
  { caller: intruder, action: "task.send", taskType: "admin", allow: true },
  { action: "task.cancel", allow: false },
]);

beforeAll(async () => {
  // The test's stand-in for the mTLS layer: the caller's verified id keyed by the socket it came from would be
  // used in production; here a header plays that role, which is why this is only wiring under test.
  ({ server, url } = await startAgent({ authzEnforcer: enforcer, identify: (request) => request.headers.get("x-test-peer") ?? undefined }, (s) => {
    s.registerTaskHandler("echo", (task) => void ran.push(`echo:${task.id}`));
    s.registerTaskHandler("admin", (task) => void ran.push(`admin:${task.id}`), { requiresPeer: "spiffe://test.local/agent/planner" });
    s.registerTaskHandler("ops", (task) => void ran.push(`ops:${task.id}`), { requiresPeer: "spiffe://test.local/ops/*" });
  }));
});
afterAll(() => server.stop());

const as = (peer: string | undefined): Record<string, string> => (peer ? { "x-test-peer": peer } : {});
// Answers are JSON-RPC envelopes whose shape each test asserts.
const post = async (body: unknown, peer?: string): Promise<any> =>
  (await fetch(`${url}/rpc`, { method: "POST", body: JSON.stringify(body), headers: { "content-type": "application/json", ...as(peer) } })).json();

describe("inbound", () => {
  test("an allowed caller runs the task; policy saw the action and the task type", async () => {
    const answer = await post(call("task.send", { type: "echo", metadata: { purpose: "test" } }), planner);
    expect(answer.result.state).toBe("completed");
    expect(ran).toContain(`echo:${answer.result.id}`);
    expect(enforcer.seen.at(-1)).toMatchObject({ direction: "in", caller: planner, action: "task.send", context: { taskType: "echo", metadata: { purpose: "test" } } });
  });

  test("a denied caller gets unauthorized; the handler never runs and no task is created", async () => {
    const before = (await server.taskManager.listTasks()).length;
    const ranBefore = ran.length;
    for (const peer of [intruder, undefined]) {
      const answer = await post(call("task.send", { type: "echo" }), peer);
      expect(answer.error).toMatchObject({ code: RpcCode.Unauthorized, data: { action: "task.send", reason: "no rule allows", auditId: expect.any(String) } });
    }
    expect(ran.length).toBe(ranBefore);
    expect((await server.taskManager.listTasks()).length).toBe(before);
  });

  test("status, cancel and the stream are checked too; a denied cancel leaves the task as it was", async () => {
    const done = (await post(call("task.send", { type: "echo" }), planner)).result;
    expect((await post(call("task.status", { id: done.id }), intruder)).error.code).toBe(RpcCode.Unauthorized);
    expect((await post(call("GetTask", { id: done.id }), intruder)).error.code).toBe(RpcCode.Unauthorized);
    expect((await post(call("tasks/get", { id: done.id }), planner)).result.id).toBe(done.id);
    const running = await server.taskManager.createTask({ type: "echo" });
    expect((await post(call("task.cancel", { id: running.id }), planner)).error.code).toBe(RpcCode.Unauthorized);
    expect((await post(call("CancelTask", { id: running.id }), planner)).error.code).toBe(RpcCode.Unauthorized);
    expect((await server.taskManager.getTask(running.id))!.state).toBe("pending");
    const stream = await fetch(`${url}/tasks/${done.id}/stream`, { headers: as(intruder) });
    expect(stream.status).toBe(403);
    expect(enforcer.seen.filter((s) => s.action === "task.cancel").length).toBe(2);
  });

  test("the A2A protocol methods map to the same actions", async () => {
    const ranBefore = ran.length;
    const denied = await post(call("SendMessage", { message: { messageId: "m1", role: "ROLE_USER", parts: [{ text: "hi" }] }, metadata: { taskType: "echo" } }), intruder);
    expect(denied.error.code).toBe(RpcCode.Unauthorized);
    const legacy = await post(call("message/send", { message: { kind: "message", messageId: "m2", role: "user", parts: [{ kind: "text", text: "hi" }] }, metadata: { taskType: "echo" } }), intruder);
    expect(legacy.error.code).toBe(RpcCode.Unauthorized);
    expect(ran.length).toBe(ranBefore);
    expect(enforcer.seen.slice(-2).map((s) => [s.action, s.context?.taskType])).toEqual([["task.send", "echo"], ["task.send", "echo"]]);
  });

  test("requiresPeer is enforced besides policy: policy allows the intruder, the task type does not", async () => {
    const ranBefore = ran.length;
    const refused = await post(call("task.send", { type: "admin" }), intruder);
    expect(refused.error).toMatchObject({ code: RpcCode.Unauthorized, message: expect.stringContaining("requires peer") });
    expect(ran.length).toBe(ranBefore);
    expect((await post(call("task.send", { type: "admin" }), planner)).result.state).toBe("completed");
  });

  test("peer patterns: exact ids and prefix/*", () => {
    expect(peerMatches(planner, planner)).toBe(true);
    expect(peerMatches(planner, `${planner}-2`)).toBe(false);
    expect(peerMatches("spiffe://test.local/ops/*", "spiffe://test.local/ops/deployer")).toBe(true);
    expect(peerMatches("spiffe://test.local/ops/*", "spiffe://test.local/opsx/deployer")).toBe(false);
    expect(peerMatches("spiffe://test.local/ops/*", undefined)).toBe(false);
  });

  test("an enforcer that fails denies", async () => {
    const broken: AuthzEnforcer = {
      checkInbound: () => Promise.reject(new Error("policy engine unreachable")),
      checkOutbound: () => Promise.reject(new Error("policy engine unreachable")),
    };
    const agent = await startAgent({ authzEnforcer: broken }, (s) => s.registerTaskHandler("echo", () => {}));
    const answer = await agent.rpc(call("task.send", { type: "echo" }));
    expect(answer.body.error).toMatchObject({ code: RpcCode.Unauthorized, message: expect.stringContaining("check failed") });
    expect(await agent.server.taskManager.listTasks()).toEqual([]);
    await agent.server.stop();
  });
});

describe("outbound", () => {
  const identity = (spiffeId: string): IdentityProvider => ({ spiffeId, clientTls: (): ClientTls => ({ cert: "", key: "", ca: "" }) });

  test("the client needs an identity to pair with an enforcer", () => {
    expect(() => new A2AClient({ authzEnforcer: enforcer })).toThrow("identity provider");
  });

  test("a denied outbound call throws and sends nothing; policy judged the callee's SPIFFE id from its card", async () => {
    const outbound = new RuleEnforcer([{ caller: planner, callee: "spiffe://test.local/agent/server", action: "task.status", allow: true }]);
    // Plain HTTP in this test: the TLS options are only used on https URLs.
    await using client = new A2AClient({ authzEnforcer: outbound, identityProvider: identity(planner), maxRetries: 0 });
    const before = (await server.taskManager.listTasks()).length;
    const error = await client.sendTask(url, "echo", {}).catch((e) => e);
    expect(error).toBeInstanceOf(A2AAuthorizationError);
    expect((await server.taskManager.listTasks()).length).toBe(before);
    expect(outbound.seen).toEqual([
      expect.objectContaining({ direction: "out", caller: planner, callee: "spiffe://test.local/agent/server", action: "task.send", context: expect.objectContaining({ taskType: "echo" }) }),
    ]);
  });
});
