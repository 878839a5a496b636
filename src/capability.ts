/**
 * How a capability joins the runtime. A capability factory receives the shared runtime, registers its actor
 * kinds, MCP tools and health check into it, and returns its HTTP plugin and lifecycle hooks.
 */
import type { Elysia } from "elysia";
import type { ActorSystem } from "../actors/system.ts";
import type { Config } from "./config.ts";
import type { DatabaseHandle } from "./db/client.ts";
import type { ErrorSurface } from "./errors.ts";
import type { Health } from "./health.ts";
import type { Logger } from "./log.ts";
import type { McpRegistry } from "./mcp/registry.ts";
import type { Metrics } from "./metrics.ts";

export interface Runtime {
  config: Config;
  log: Logger;
  database: DatabaseHandle;
  actors: ActorSystem;
  mcp: McpRegistry;
  health: Health;
  /** GET /metrics: a capability defines its own metrics here. */
  metrics: Metrics;
  /**
   * `owner` (`serve`) restores the stored actors after every factory has run and then calls `start`; a `guest` (an
   * MCP stdio server beside it) restores none and never calls `start`. An actor a factory spawns at once would be
   * restored over itself in an owner, so an owner spawns in `start`.
   */
  role: "owner" | "guest";
}

export interface Capability {
  name: string;
  /** Routes on the main listener. */
  http?: Elysia<any, any, any, any, any, any, any>;
  /** Renders failures on this capability's paths (not found, malformed JSON, validation, ...) its own way. */
  errors?: ErrorSurface;
  /**
   * Names the verified caller behind a request on the main listener (e.g. the mTLS front's SPIFFE id), for
   * surfaces the runtime serves itself, such as MCP over HTTP. Never read from anything a client can send.
   */
  identify?(request: Request): string | undefined;
  /**
   * Runs after every capability is registered and actors are restored (e.g. extra listeners), in the process
   * that owns the data dir (`serve`), not in an MCP stdio guest.
   */
  start?(): void | Promise<void>;
  /**
   * What a person can open once the server listens at `base` (the main listener's URL): this capability's pages,
   * documents and extra listeners, by name. Printed at start-up.
   */
  endpoints?(base: string): Record<string, string>;
  /** Runs at shutdown, before actors stop and the database closes. */
  stop?(): void | Promise<void>;
}

export type CapabilityFactory = ((runtime: Runtime) => Capability | Promise<Capability>) & {
  /**
   * The MCP servers this factory registers into, so that `platform mcp <server>` constructs only the capabilities
   * that server needs; `[]` for none. Left out, the factory may register into any server and always runs.
   */
  mcpServers?: readonly string[];
};
