/**
 * The @a2a-js/sdk reference server for scripts/bench/a2a.ts: its Express app with an echo executor and the
 * SDK's in-memory task store. Plain JavaScript, so that it runs where the SDK's users run it (Node.js) as well
 * as under Bun. Prints {"url"} on its first line once listening.
 */
import express from "express";
import { TaskState } from "@a2a-js/sdk";
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore } from "@a2a-js/sdk/server";
import { agentCardHandler, jsonRpcHandler, UserBuilder } from "@a2a-js/sdk/server/express";

const app = express();
const listening = app.listen(0, "127.0.0.1");
await new Promise((resolve) => listening.once("listening", resolve));
const url = `http://127.0.0.1:${listening.address().port}`;

const card = {
  name: "Reference echo",
  description: "Echo",
  version: "1.0.0",
  supportedInterfaces: [{ url, protocolBinding: "JSONRPC", protocolVersion: "1.0", tenant: "" }],
  provider: undefined,
  capabilities: { streaming: true, pushNotifications: false, extensions: [] },
  securitySchemes: {},
  securityRequirements: [],
  defaultInputModes: ["text/plain"],
  defaultOutputModes: ["text/plain"],
  skills: [],
  signatures: [],
};

// The SDK's own pattern: announce the task, publish the echo as an artifact, complete.
const executor = {
  async execute({ taskId, contextId, userMessage }, bus) {
    const at = () => new Date().toISOString();
    bus.publish(AgentEvent.task({ id: taskId, contextId, status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: at() }, artifacts: [], history: [userMessage], metadata: undefined }));
    bus.publish(AgentEvent.artifactUpdate({ taskId, contextId, artifact: { artifactId: "echo", name: "echo", description: "", parts: userMessage.parts, metadata: undefined, extensions: [] }, append: false, lastChunk: true, metadata: undefined }));
    bus.publish(AgentEvent.statusUpdate({ taskId, contextId, status: { state: TaskState.TASK_STATE_COMPLETED, message: undefined, timestamp: at() }, metadata: undefined }));
    bus.finished();
  },
  async cancelTask() {},
};

const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), executor);
app.use("/.well-known/agent-card.json", agentCardHandler({ agentCardProvider: handler }));
app.use(express.json({ limit: "1mb" }));
app.use("/", jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
process.on("SIGTERM", () => (listening.close(), process.exit(0)));
console.log(JSON.stringify({ url }));
