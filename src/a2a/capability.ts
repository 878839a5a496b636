/**
 * The platform's own agent: an A2A server on the runtime's actors and database whose task types are the
 * operations the platform hosts. Each MCP tool of each hosted server is a task type (named after the tool, or
 * `<server>.<tool>` when two servers share a tool name): task.send `{type: tool, payload: arguments}` runs the
 * tool through the same call path as MCP, and the tool's result becomes the task's result.
 */
import { securityOf } from "../authz/capability.ts";
import type { CapabilityFactory } from "../capability.ts";
import type { Config } from "../config.ts";
import type { FailureKind } from "../errors.ts";
import { callTool } from "../mcp/call.ts";
import type { Tool } from "../mcp/define.ts";
import type { McpRegistry } from "../mcp/registry.ts";
import type { Logger } from "../log.ts";
import { AgentCard, Capability } from "./card.ts";
import type { TaskHandler } from "./handlers.ts";
import { RpcCode } from "./errors.ts";
import { A2AServer } from "./http.ts";
import { rpcErrorResponse } from "./rpc.ts";
import { PushNotifications } from "./push.ts";
import { TaskManager } from "./service.ts";

export const a2aCapability: CapabilityFactory = (runtime) => {
  const { config, log, database, actors, mcp, health, metrics } = runtime;
  const a2aLog = log.child({ component: "a2a" });
  // Every call is checked before its handler runs; the caller is who the mTLS front verified, never a header.
  const security = securityOf(runtime);
  const taskManager = new TaskManager({ actors, db: database.db, log: a2aLog });
  const { allow_addresses, max_attempts, retry_ms, max_delay_ms, timeout_ms } = config.a2a.push;
  const push = new PushNotifications(taskManager, {
    actors,
    db: database.db,
    log: a2aLog.child({ component: "a2a.push" }),
    allowAddresses: allow_addresses,
    maxAttempts: max_attempts,
    retryMs: retry_ms,
    maxDelayMs: max_delay_ms,
    timeoutMs: timeout_ms,
    // A webhook that authenticates callers by mTLS gets this agent's SVID, the scheme its card names.
    clientTls: () => security.identityProvider()?.clientTls(),
  });
  const capabilities: Capability[] = [];
  const { public_url: publicUrl, default_skill: defaultSkill, public_skills: publicSkills } = config.a2a;
  const listed = (c: Capability) => !publicSkills.length || publicSkills.includes(c.name);
  const cards = new Map<string, AgentCard>();
  const extendedCards = new Map<string, AgentCard>();
  const server = new A2AServer({
    agentCard: (origin) => cardFor(config, publicUrl || origin, () => capabilities.filter(listed), cards),
    // With public skills chosen, authenticated callers see the rest in the extended card.
    extendedCard: publicSkills.length ? (origin) => cardFor(config, publicUrl || origin, () => capabilities, extendedCards) : undefined,
    // A request forwarded by the mTLS front was made over https, to the front's port (the Host the client sent).
    publicOrigin: (request) => {
      const origin = new URL(request.url).origin;
      return security.overTls(request) ? origin.replace(/^http:/, "https:") : origin;
    },
    defaultTaskType: defaultSkill || undefined,
    taskManager,
    push,
    authzEnforcer: security.enforcer,
    identify: security.identify,
    bodyLimit: config.server.body_limit,
    log: a2aLog,
  });
  health.register("a2a", () => server.health());
  metrics.gauge({ name: "platform_sse_subscribers", help: "Open event streams of A2A tasks" }, () => [{ value: taskManager.streams }]);
  return {
    name: "a2a",
    endpoints: (base) => ({ "A2A agent card": `${base}/.well-known/agent-card.json`, "A2A JSON-RPC": `${base}/rpc` }),
    http: server.plugin,
    // What the runtime catches before /rpc reads a body (an oversized one, a fault) still answers in JSON-RPC.
    errors: { prefix: "/rpc", render: ({ kind, message, status }) => rpcErrorResponse(rpcCodeOf[kind], message, status) },
    // Tools are read here, not in the factory, so capabilities listed after this one are included too.
    async start() {
      await push.start();
      for (const { type, tool } of toolTaskTypes(mcp)) {
        server.registerTaskHandler(type, toolHandler(tool, a2aLog.child({ taskType: type })), { capability: type });
        capabilities.push(new Capability({ name: type, description: tool.description, parameters: tool.input as Record<string, unknown> }));
      }
      const unknown = [defaultSkill, ...publicSkills].filter((skill) => skill && !server.handlers.get(skill));
      if (unknown.length) throw new Error(`a2a.default_skill and a2a.public_skills name skills this agent does not have: ${unknown.join(", ")}; it has: ${server.handlers.types().join(", ")}`);
      await server.recoverInterrupted();
      // Tasks taken over from a node that died are settled the same way, as they come.
      taskManager.onInterrupted(() => void server.recoverInterrupted());
    },
  };
};

a2aCapability.mcpServers = [];

const rpcCodeOf: Record<FailureKind, number> = {
  NOT_FOUND: RpcCode.MethodNotFound,
  MALFORMED_JSON: RpcCode.ParseError,
  VALIDATION: RpcCode.InvalidParams,
  PAYLOAD_TOO_LARGE: RpcCode.InvalidRequest,
  REFUSED: RpcCode.InvalidRequest,
  UNAVAILABLE: RpcCode.InternalError,
  INTERNAL: RpcCode.InternalError,
};

/** The card for `url`, made once (the skills are known by the first request: they are read at start). */
function cardFor(config: Config, url: string, capabilities: () => Capability[], cards: Map<string, AgentCard>): AgentCard {
  let card = cards.get(url);
  if (!card) {
    card = AgentCard.fromConfig({
      name: "Platform",
      description: "One runtime hosting agents' tools: each hosted MCP tool runs as an A2A task.",
      url,
      spiffeId: config.a2a.spiffe_id,
      capabilities: capabilities(),
    });
    cards.set(url, card);
  }
  return card;
}

/** Every tool of every MCP server, named by tool, or `<server>.<tool>` where a name is shared. */
export function toolTaskTypes(mcp: McpRegistry): { type: string; tool: Tool }[] {
  const all = mcp.names().flatMap((server) => [...mcp.get(server)!.tools.values()].map((tool) => ({ server, tool })));
  const count = new Map<string, number>();
  for (const { tool } of all) count.set(tool.name, (count.get(tool.name) ?? 0) + 1);
  return all.map(({ server, tool }) => ({ type: count.get(tool.name)! > 1 ? `${server}.${tool.name}` : tool.name, tool }));
}

/** Runs the tool on the task's payload; a tool error (or invalid arguments) fails the task with its text. */
export function toolHandler(tool: Tool, log: Logger): TaskHandler {
  return async (task, { signal, callerId, update }) => {
    const result = await callTool(
      tool,
      task.payload,
      {
        signal,
        caller: callerId,
        progress: async (progress) => {
          task.metadata.progress = progress;
          await update(task);
        },
      },
      log,
    );
    const text = result.content
      .flatMap((c) => (c.type === "text" ? [c.text] : []))
      .join("\n");
    if (result.isError) throw new Error(text || `tool ${tool.name} failed`);
    task.result = result.structuredContent ?? { content: result.content };
    return task;
  };
}
