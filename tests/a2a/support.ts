/** A2A test helpers: a standalone server on a free loopback port, the platform's agent over mTLS, JSON-RPC posting, and SSE reading. */
import { join } from "node:path";
import { EventSourceParserStream } from "eventsource-parser/stream";
import type { EventSourceMessage } from "eventsource-parser";
import { AgentCard, A2AServer, TaskManager, type A2AServerOptions } from "../../src/a2a/index.ts";
import { a2aCapability } from "../../src/a2a/capability.ts";
import { authzCapability } from "../../src/authz/capability.ts";
import type { CapabilityFactory } from "../../src/capability.ts";
import { loadConfig } from "../../src/config.ts";
import { issueToFolder } from "../../src/identity/issue.ts";
import { FileSvidSource, svidIdentityProvider } from "../../src/identity/svid.ts";
import { createLogger } from "../../src/log.ts";
import { platformCapability } from "../../src/platform/tools.ts";
import { startRuntime } from "../../src/runtime.ts";
import { buildApp } from "../../src/server.ts";
import { fixtureCapability } from "../fixtures/capability.ts";
import { tempDir } from "../support/temp.ts";

export async function startAgent(options: Partial<A2AServerOptions> = {}, setup: (server: A2AServer) => void = () => {}) {
  const server = new A2AServer({
    agentCard: (origin) => AgentCard.fromConfig({ name: "Test agent", description: "Runs test tasks", url: origin, spiffeId: "spiffe://test.local/agent/server" }),
    ...options,
  });
  setup(server);
  const url = await server.start("127.0.0.1", 0);
  return { server, url, rpc: (body: unknown, headers: Record<string, string> = {}) => rpc(url, body, headers) };
}

/**
 * A task manager on the store `env` names (SQLite in a temp data dir without one), on a runtime's actor system
 * as `platform serve` builds it: a node with its lease and, on PostgreSQL, transitions logged and announced for
 * other nodes' streams.
 */
export async function storedTasks(env: Record<string, string> = {}) {
  const dir = tempDir();
  const quiet = createLogger({ level: "error", write: () => {} });
  const runtime = await startRuntime(loadConfig({ env: { PLATFORM_DATA_DIR: dir.path, ...env } }), quiet, []);
  return {
    manager: new TaskManager({ actors: runtime.actors, db: runtime.database.db, log: quiet }),
    async close() {
      await runtime.close();
      dir.remove();
    },
  };
}

export async function rpc(url: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${url}/rpc`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
}

export const call = (method: string, params?: unknown, id: string | number = 1) => ({ jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) });

/** Reads SSE events until the stream ends, or until `until` returns true (then the stream is cancelled). */
export async function readEvents(response: Response, until: (event: EventSourceMessage) => boolean = () => false) {
  const events: EventSourceMessage[] = [];
  const reader = response.body!.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream()).getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    events.push(value);
    if (until(value)) {
      await reader.cancel();
      break;
    }
  }
  return events;
}

/** A promise with its resolve, for handlers a test holds open until it lets them go. */
export const gate = <T = void>() => Promise.withResolvers<T>();

/** The `hold` skill's gates: `started` resolves with the held task's id, `release` lets it finish; `arm` readies new ones. */
export interface Hold {
  started: PromiseWithResolvers<string>;
  release: PromiseWithResolvers<void>;
  arm(): void;
}

/**
 * An agent for off-the-shelf clients: `echo` (the default skill) answers its payload; `hold` reports an artifact,
 * then waits until the test releases it or the task is cancelled.
 */
export async function startHoldingAgent() {
  const hold: Hold = {
    started: gate<string>(),
    release: gate(),
    arm() {
      hold.started = gate<string>();
      hold.release = gate();
    },
  };
  const agent = await startAgent({ defaultTaskType: "echo" }, (s) => {
    s.registerTaskHandler("echo", (task) => {
      task.result = task.payload;
      task.addMessage("agent", "echoed");
      return task;
    });
    s.registerTaskHandler("hold", async (task, { signal, update }) => {
      task.addArtifact("note", "halfway");
      update(task);
      hold.started.resolve(task.id);
      await Promise.race([hold.release.promise, new Promise((resolve) => signal.addEventListener("abort", resolve))]);
      task.result = "released";
      return task;
    });
  });
  return { ...agent, hold };
}

/**
 * Settings under which the platform's A2A agent lets unidentified callers through: development, the
 * allow-all development policy, and mTLS not required. Authorization itself is tested in tests/authz.
 */
export const openAuthorization = {
  PLATFORM_ENV: "development",
  PLATFORM_AUTHORIZATION__POLICY_DIR: join(import.meta.dir, "../../policies/dev"),
  PLATFORM_IDENTITY__MTLS__REQUIRED: "false",
};

/**
 * The platform's own agent as `platform serve` runs it, with the mTLS front on, the development CA, and the policy
 * shipped in policies/; `identity(id)` issues an SVID and gives the fetch that presents it.
 */
export async function startPlatformAgent(env: Record<string, string> = {}, factories?: CapabilityFactory[]) {
  const dir = tempDir();
  const config = loadConfig({
    env: {
      PLATFORM_DATA_DIR: dir.path,
      PLATFORM_ENV: "development",
      PLATFORM_IDENTITY__MTLS__ENABLED: "true",
      PLATFORM_IDENTITY__MTLS__HOST: "127.0.0.1",
      PLATFORM_IDENTITY__MTLS__PORT: "0",
      PLATFORM_AUTHORIZATION__POLICY_DIR: join(import.meta.dir, "../../policies"),
      PLATFORM_VAULT__SETUP_ENABLED: "false",
      ...env,
    },
  });
  const quiet = createLogger({ level: "error", write: () => {} });
  const runtime = await startRuntime(config, quiet, factories ?? [platformCapability, authzCapability, a2aCapability, fixtureCapability]);
  const { app, closeMcp } = buildApp(runtime);
  app.listen({ hostname: "127.0.0.1", port: 0 });
  const { mtls } = runtime.health.report().subsystems.authorization as unknown as { mtls: { port: number } };
  const sources: FileSvidSource[] = [];
  return {
    runtime,
    plainUrl: `http://127.0.0.1:${app.server!.port}`,
    mtlsUrl: `https://127.0.0.1:${mtls.port}`,
    /** A fetch presenting an SVID for `spiffeId`, issued from the development CA. */
    async identity(spiffeId: string): Promise<typeof fetch> {
      const out = join(dir.path, "svids", spiffeId.split("/").at(-1)!);
      await issueToFolder(config, spiffeId, out, 3600);
      const source = new FileSvidSource({ certFile: join(out, "svid.pem"), keyFile: join(out, "svid.key"), bundleFile: join(out, "bundle.pem") });
      sources.push(source);
      const tls = svidIdentityProvider(source).clientTls();
      return ((input: string | URL | Request, init?: RequestInit) => fetch(input, { ...init, tls } as RequestInit)) as typeof fetch;
    },
    async close() {
      for (const source of sources) source.close();
      await app.stop(true);
      await closeMcp();
      await runtime.close();
      dir.remove();
    },
  };
}
