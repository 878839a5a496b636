/** Platform nodes as real processes on one PostgreSQL store, with the vault's keys and the catalog's signing key shared. */
import { join } from "node:path";
import { openAuthorization, readEvents } from "../a2a/support.ts";
import { serve, type Running } from "../support/cli.ts";

const node = ["bun", join(import.meta.dir, "fixtures/node.ts")];

export interface NodeSpec {
  id: string;
  url: string;
  /** The folder holding every node's data dir, and the keys they share. */
  root: string;
  leaseMs: number;
  env?: Record<string, string>;
}

/** Starts `platform serve` as node `id` on the store at `url`; resolves once it listens. */
export function startNode({ id, url, root, leaseMs, env = {} }: NodeSpec): Promise<Running> {
  return serve(join(root, id), {
    command: node,
    env: {
      ...openAuthorization,
      DATABASE_URL: url,
      PLATFORM_CLUSTER__NODE_ID: id,
      PLATFORM_CLUSTER__LEASE_MS: String(leaseMs),
      // Every node unseals from the same keys and signs with the same key, as docs/deploy.md says to set up.
      PLATFORM_VAULT__KEY_DIR: join(root, "vault-keys"),
      PLATFORM_CATALOG__JWT_KEY_FILE: join(root, "catalog-jwt.key"),
      PLATFORM_VAULT__SETUP_ENABLED: "false",
      ...env,
    },
  });
}

/** One JSON-RPC call. */
export async function rpc(base: string, method: string, params: unknown, id: number | string = 1): Promise<any> {
  const res = await fetch(`${base}/rpc`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id, method, params }) });
  return res.json();
}

export interface Watched {
  id: string;
  revisions: number[];
  events: string[];
  done: Promise<void>;
}

/** Follows a task's SSE stream on `base` to its end, keeping each event's id and name. */
export function watch(base: string, taskId: string): Watched {
  const watched: Watched = { id: taskId, revisions: [], events: [], done: Promise.resolve() };
  watched.done = (async () => {
    for (const { id, event } of await readEvents(await fetch(`${base}/tasks/${taskId}/stream`)))
      if (id && event) watched.revisions.push(Number(id)), watched.events.push(event);
  })();
  return watched;
}
