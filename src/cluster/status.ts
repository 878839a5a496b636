/**
 * What `platform cluster status` reports: the nodes the store knows (their heartbeats and leases, judged by the
 * store's clock) and the actors each holds, read from the store itself, so it answers whether or not a node runs
 * here. As JSON for machines, as a table for a person.
 */
import { listNodes, type NodeStatus } from "../../actors/repo.ts";
import type { DatabaseHandle, Dialect } from "../db/client.ts";

export interface ClusterStatus {
  store: { dialect: Dialect; location: string };
  nodes: (Omit<NodeStatus, "actors"> & { actors: { total: number; byKind: Record<string, number> } })[];
  /** Active actors no node holds yet (a guest process spawned them; the next node to look claims them). */
  unowned: { total: number; byKind: Record<string, number> };
}

const counted = (byKind: Record<string, number>) => ({ total: Object.values(byKind).reduce((sum, n) => sum + n, 0), byKind });

export async function clusterStatus(database: DatabaseHandle): Promise<ClusterStatus> {
  const { nodes, unowned } = await listNodes(database.db);
  return {
    store: { dialect: database.dialect, location: database.location },
    nodes: nodes.map((node) => ({ ...node, actors: counted(node.actors) })),
    unowned: counted(unowned),
  };
}

/** The status as a person reads it: a line on the store, then one row per node. */
export function formatStatus({ store, nodes, unowned }: ClusterStatus): string {
  const alive = nodes.filter((node) => node.live).length;
  const head =
    store.dialect === "sqlite"
      ? `SQLite store ${store.location}: one node (several nodes share a PostgreSQL store; see docs/deploy.md)`
      : `PostgreSQL store ${store.location}: ${nodes.length} node${nodes.length === 1 ? "" : "s"}, ${alive} alive`;
  const rows = nodes.map((node) => [
    node.id,
    node.url ?? "-",
    `${seconds(node.heartbeatAgeMs)} ago`,
    node.live ? `in ${seconds(node.expiresInMs)}` : `${seconds(-node.expiresInMs)} ago`,
    node.live ? "alive" : "expired",
    kinds(node.actors),
  ]);
  const lines = [head, "", ...(rows.length ? table(["NODE", "URL", "HEARTBEAT", "LEASE ENDS", "STATE", "ACTORS"], rows) : ["no node has run on this store yet"])];
  if (unowned.total) lines.push("", `not yet claimed by a node: ${kinds(unowned)}`);
  return `${lines.join("\n")}\n`;
}

const seconds = (ms: number) => `${(Math.max(0, ms) / 1000).toFixed(1)} s`;

/** "3 (a2a.task 2, vault.lease 1)", or "0". */
const kinds = ({ total, byKind }: { total: number; byKind: Record<string, number> }) => {
  const parts = Object.entries(byKind)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([kind, n]) => `${kind} ${n}`);
  return parts.length ? `${total} (${parts.join(", ")})` : "0";
};

/** Columns padded to their widest cell. */
export function table(header: string[], rows: string[][]): string[] {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  return [header, ...rows].map((row) => row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]!))).join("  "));
}
