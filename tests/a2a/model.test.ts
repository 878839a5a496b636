import { describe, expect, test } from "bun:test";
import { AgentCard, AuthScheme, Capability, canMove, Task, TaskStateError, TaskStates, ValueError } from "../../src/a2a/index.ts";

describe("Task", () => {
  test("defaults: generated unique id, pending, empty collections, updatedAt = createdAt", () => {
    const a = new Task({ type: "echo" });
    const b = new Task({ type: "echo" });
    expect(a.id).not.toBe(b.id);
    expect(a).toMatchObject({ state: "pending", payload: {}, messages: [], artifacts: [], metadata: {}, result: undefined, error: undefined });
    expect(a.updatedAt.getTime()).toBe(a.createdAt.getTime());
    expect(a.contextId).toBe(a.id);
  });

  test("the allowed moves are the machine's: final states never move again", () => {
    const moves = TaskStates.flatMap((from) => TaskStates.filter((to) => canMove(from, to)).map((to) => `${from}>${to}`));
    expect(moves.sort()).toEqual(
      ["pending>running", "pending>completed", "pending>failed", "pending>cancelled", "running>completed", "running>failed", "running>cancelled"].sort(),
    );
  });

  test("mark* move the state, refresh updatedAt, and a final task refuses further moves", () => {
    const task = new Task({ type: "echo" });
    const created = task.updatedAt.getTime();
    task.markRunning();
    expect(task.state).toBe("running");
    expect(task.updatedAt.getTime()).toBeGreaterThan(created);
    task.markCompleted({ ok: true });
    expect(task).toMatchObject({ state: "completed", result: { ok: true } });
    expect(task.isTerminal()).toBe(true);
    expect(() => task.markFailed("late")).toThrow(TaskStateError);
    expect(() => task.markRunning()).toThrow(TaskStateError);
    expect(task.state).toBe("completed");
    expect(task.error).toBeUndefined();
  });

  test("markFailed records the error; markCancelled ends a running task", () => {
    expect(new Task({ type: "x" }).markRunning().markFailed("boom")).toMatchObject({ state: "failed", error: "boom" });
    expect(new Task({ type: "x" }).markRunning().markCancelled().isTerminal()).toBe(true);
  });

  test("addMessage and addArtifact validate, stamp and refresh updatedAt", () => {
    const task = new Task({ type: "x" });
    const before = task.updatedAt.getTime();
    const message = task.addMessage("user", [{ kind: "text", text: "hi" }, { kind: "file", file: { uri: "https://example.org/a.pdf", mimeType: "application/pdf" } }]);
    expect(message).toMatchObject({ role: "user", parts: [{ kind: "text", text: "hi" }, { kind: "file" }] });
    expect(message.id).toBeString();
    expect(task.updatedAt.getTime()).toBeGreaterThan(before);
    expect(task.addMessage("agent", "plain text").parts).toEqual([{ kind: "text", text: "plain text" }]);
    expect(() => task.addMessage("user", [])).toThrow(ValueError);
    expect(() => task.addMessage("user", [{ kind: "video" } as never])).toThrow(ValueError);
    expect(() => task.addMessage("robot" as never, "x")).toThrow(ValueError);
    const artifact = task.addArtifact("report", { lines: 3 }, { source: "test" });
    expect(artifact).toMatchObject({ type: "report", data: { lines: 3 }, metadata: { source: "test" } });
    expect(task.messages).toHaveLength(2);
    expect(task.artifacts).toHaveLength(1);
  });

  test("toDict and fromDict round-trip; toJSONRPC builds the request", () => {
    const task = new Task({ type: "echo", payload: { a: 1 }, metadata: { m: 1 } });
    task.addMessage("user", "hello");
    task.markRunning().markCompleted(42);
    const copy = Task.fromDict(JSON.parse(JSON.stringify(task)));
    expect(copy.toDict()).toEqual(task.toDict());
    expect(copy.createdAt).toBeInstanceOf(Date);
    expect(task.toJSONRPC()).toEqual({
      jsonrpc: "2.0",
      id: task.id,
      method: "task.send",
      params: { type: "echo", payload: { a: 1 }, messages: task.messages, metadata: { m: 1 }, contextId: task.contextId },
    });
    expect(task.toJSONRPC("task.status")).toMatchObject({ method: "task.status", params: { id: task.id } });
    expect(() => Task.fromDict({ type: "x", state: "sleeping" as never })).toThrow(ValueError);
  });
});

describe("AgentCard", () => {
  const base = { name: "Planner", description: "Plans", url: "https://planner.example" };

  test("url must be http(s)", () => {
    expect(() => new AgentCard({ ...base, url: "ftp://x" })).toThrow(ValueError);
    expect(() => new AgentCard({ ...base, url: "planner.example" })).toThrow("must start with http:// or https://");
    expect(new AgentCard({ ...base, url: "http://127.0.0.1:1" }).url).toBe("http://127.0.0.1:1");
  });

  test("defaults: version 1.0.0, no capabilities, no schemes, no extensions, no SPIFFE id", () => {
    const card = new AgentCard(base);
    expect(card.toDict()).toEqual({ ...base, version: "1.0.0", capabilities: [], authentication: { schemes: [] }, extensions: {} });
    expect(card.getSpiffeId()).toBeUndefined();
  });

  test("fromConfig: SPIFFE id in extensions and one spiffe scheme by default", () => {
    const card = AgentCard.fromConfig({ ...base, spiffeId: "spiffe://platform.local/agent/planner", capabilities: [{ name: "plan", description: "Make a plan" }] });
    expect(card.getSpiffeId()).toBe("spiffe://platform.local/agent/planner");
    expect(card.authentication.schemes.map((s) => s.toDict())).toEqual([
      { type: "spiffe", description: expect.any(String), metadata: { spiffeId: "spiffe://platform.local/agent/planner" } },
    ]);
    expect(card.hasCapability("plan")).toBe(true);
    expect(card.hasCapability("fly")).toBe(false);
    expect(card.getCapability("plan")?.inputModes).toEqual(["application/json"]);
    expect(card.getCapability("fly")).toBeUndefined();
    const custom = AgentCard.fromConfig({ ...base, spiffeId: "spiffe://x/y", authSchemes: [new AuthScheme({ type: "bearer" })] });
    expect(custom.authentication.schemes[0]!.toDict()).toEqual({ type: "bearer", metadata: {} });
  });

  test("fromJSON / fromDict round-trip and refuse bad cards", () => {
    const card = AgentCard.fromConfig({ ...base, spiffeId: "spiffe://x/y", version: "2.1.0", capabilities: [new Capability({ name: "c", description: "d", parameters: { type: "object" } })] });
    expect(AgentCard.fromJSON(JSON.stringify(card)).toDict()).toEqual(card.toDict());
    expect(AgentCard.fromDict(card.toDict()).getSpiffeId()).toBe("spiffe://x/y");
    expect(() => AgentCard.fromJSON("{not json")).toThrow(ValueError);
    expect(() => AgentCard.fromDict({ name: "x" })).toThrow(ValueError);
    expect(() => AgentCard.fromDict({ ...base, url: "mailto:x" })).toThrow(ValueError);
  });

  test("Capability and AuthScheme defaults", () => {
    expect(new Capability({ name: "c", description: "d" }).toDict()).toEqual({
      name: "c",
      description: "d",
      inputModes: ["application/json"],
      outputModes: ["application/json"],
      parameters: { type: "object" },
    });
    expect(new AuthScheme({ type: "spiffe", description: "mTLS" }).toDict()).toEqual({ type: "spiffe", description: "mTLS", metadata: {} });
  });
});
