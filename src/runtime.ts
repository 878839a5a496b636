/**
 * Boots the shared runtime: database, actor system, MCP registry, health, and every capability. Used by both
 * `serve` and `mcp <server>`, so a tool behaves the same whichever way an assistant reaches it.
 */
import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import { ActorSystem } from "../actors/system.ts";
import { capabilities as defaultCapabilities } from "./capabilities.ts";
import type { Capability, CapabilityFactory, Runtime } from "./capability.ts";
import type { Config } from "./config.ts";
import { prepareDataDir } from "./data-dir.ts";
import { lockDataDir } from "./data-dir-lock.ts";
import { openDatabase, storeOptions, type DatabaseHandle } from "./db/client.ts";
import { StoreWatch } from "./db/watch.ts";
import { ClusterNode } from "./cluster/node.ts";
import { Health } from "./health.ts";
import type { Logger } from "./log.ts";
import { LoopLag } from "./loop-lag.ts";
import { McpRegistry } from "./mcp/registry.ts";
import { Metrics } from "./metrics.ts";
import { version } from "./version.ts";

export interface RunningRuntime extends Runtime {
  capabilities: Capability[];
  /** This node among those sharing the store. */
  cluster: ClusterNode;
  /** Stops capabilities and actors (their state stays stored) and closes the database. */
  close(): Promise<void>;
}

export interface RuntimeOptions {
  /**
   * `serve` owns the data dir: it restores and sweeps actors and starts capabilities' extra listeners.
   * A `guest` (an MCP stdio server beside it) only hosts tools: the actors it spawns are stored as usual and
   * the owner restores them, so no actor ever has two live copies.
   */
  role?: "owner" | "guest";
  /**
   * The one MCP server a guest serves: only the factories that register into it (or do not say where they
   * register, see `CapabilityFactory.mcpServers`) are constructed.
   */
  mcpServer?: string;
}

/** The factories that a runtime serving only the MCP server `name` needs. */
const factoriesServing = (name: string, factories: CapabilityFactory[]): CapabilityFactory[] =>
  factories.filter(({ mcpServers }) => !mcpServers || mcpServers.includes(name));

export async function startRuntime(
  config: Config,
  log: Logger,
  factories: CapabilityFactory[] = defaultCapabilities,
  { role = "owner", mcpServer }: RuntimeOptions = {},
): Promise<RunningRuntime> {
  // The owner runs the data dir's actors: a second owner is refused before it touches anything.
  prepareDataDir(config.data_dir, { production: config.environment === "production" });
  const lock = role === "owner" ? lockDataDir(config.data_dir) : undefined;
  let database: DatabaseHandle;
  try {
    database = await openDatabase(storeOptions(config));
  } catch (error) {
    lock?.release();
    throw error;
  }
  // The data dir's owner on SQLite is the only one there is (its lock says so), under one name across restarts, so a
  // restart takes back its actors at once; otherwise a name of this process's own unless one is configured.
  const node = config.cluster.node_id || (role === "owner" && !database.shared ? hostname() : `${hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`);
  const actors = new ActorSystem({ db: database.db, log, retentionMs: config.actors.retention_seconds * 1000, node, shared: database.shared });
  const cluster = new ClusterNode({ database, actors, log: log.child({ component: "cluster" }), leaseMs: config.cluster.lease_ms, takesOver: role === "owner" });
  const health = new Health(version);
  const metrics = new Metrics();
  const runtime: Runtime = { config, log, database, actors, mcp: new McpRegistry(version, { settled: () => actors.committed() }), health, metrics, role };
  const loopLag = new LoopLag();

  const storeWatch = new StoreWatch(database, log);
  health.register("database", () => storeWatch.health());
  health.field("node", () => cluster.id);
  health.register("cluster", () => cluster.health());
  health.register("actors", () => ({ status: "ok", ...actors.stats() }));
  // Figures only: a loop that stands still cannot answer /health at all; this says how long it last stood.
  health.register("eventLoop", () => ({ status: "ok", ...loopLag.stats() }));
  metrics.gauge({ name: "platform_event_loop_lag_seconds", help: "How late the event loop last ran a timer" }, () => [
    { value: loopLag.stats().lagMs / 1000 },
  ]);
  metrics.gauge({ name: "platform_event_loop_lag_max_seconds", help: "The longest the event loop stood still in the last minute" }, () => [
    { value: loopLag.stats().maxLagMs / 1000 },
  ]);
  metrics.gauge({ name: "platform_actors", help: "Live actors by kind and state", labelNames: ["kind", "state"] }, () =>
    actors.census().map(({ kind, state, count }) => ({ labels: { kind, state }, value: count })),
  );

  const capabilities: Capability[] = [];
  const close = async () => {
    for (const capability of [...capabilities].reverse()) {
      try {
        await capability.stop?.();
      } catch (error) {
        log.error("capability failed to stop", { capability: capability.name, error });
      }
    }
    await actors.stop();
    // Its lease ends with it, so other nodes take over whatever it held at once.
    await cluster.stop();
    loopLag.stop();
    storeWatch.stop();
    await database.close();
    lock?.release();
  };
  try {
    for (const factory of mcpServer === undefined ? factories : factoriesServing(mcpServer, factories))
      capabilities.push(await factory(runtime));
    await cluster.start();
    if (role === "owner") {
      await actors.restore();
      await cluster.collectMail();
      actors.startSweeping(Math.min(60_000, Math.max(1000, config.actors.retention_seconds * 100)));
      for (const capability of capabilities) await capability.start?.();
    }
  } catch (error) {
    // What did start (listeners, timers, the lock) is stopped, so a failed start leaves nothing running.
    await close();
    throw error;
  }
  // Measured from here on: start-up's own synchronous work (imports, compiling policies) is not a stall.
  loopLag.start();

  return { ...runtime, capabilities, cluster, close };
}
