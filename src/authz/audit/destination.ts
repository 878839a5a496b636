/** Turns `authorization.audit.destination` into a transport; a malformed destination is a start-up error. */
import { isAbsolute, join } from "node:path";
import type { DatabaseHandle } from "../../db/client.ts";
import type { Logger } from "../../log.ts";
import { AuthzConfigError } from "../errors.ts";
import { fileTransport } from "./file.ts";
import { kafkaTransport } from "./kafka.ts";
import type { AuditTransport } from "./log.ts";
import { storeTransport } from "./store.ts";
import { syslogTransport } from "./syslog.ts";

export interface AuditSetting {
  dataDir: string;
  log: Logger;
  /** The store this node uses, and the node's id, recorded with each of its decisions there. */
  database: DatabaseHandle;
  node: string;
}

/**
 * Whether decisions go to the store: `store://`, or no destination on a store several nodes share (PostgreSQL), so
 * that every node's decisions are read in one place. On SQLite (one node) the default is the data dir's
 * audit.jsonl, which keeps decisions off the store's one writer.
 */
export const auditsToStore = (destination: string, { shared }: Pick<DatabaseHandle, "shared">): boolean =>
  destination === "store://" || (destination === "" && shared);

export function auditTransport(destination: string, { dataDir, log, database, node }: AuditSetting): AuditTransport {
  if (auditsToStore(destination, database)) return storeTransport(database, node);
  if (destination === "") return fileTransport(join(dataDir, "audit.jsonl"));
  const [, scheme, rest] = /^([a-z]+):\/\/(.*)$/.exec(destination) ?? [];
  const fail = (why: string): never => {
    throw new AuthzConfigError(`authorization.audit.destination ${JSON.stringify(destination)}: ${why}`);
  };
  switch (scheme) {
    case "file":
      if (!rest) fail("give a path, e.g. file:///var/log/platform/audit.jsonl");
      return fileTransport(isAbsolute(rest!) ? rest! : join(process.cwd(), rest!));
    case "syslog": {
      const [address = "", query = ""] = rest!.split("?");
      const transport = new URLSearchParams(query).get("transport") ?? "udp";
      if (transport !== "udp" && transport !== "tcp") fail("transport must be udp or tcp");
      return syslogTransport({ ...hostPort(address, fail), transport: transport as "udp" | "tcp" });
    }
    case "kafka": {
      const slash = rest!.indexOf("/");
      const topic = slash < 0 ? "" : rest!.slice(slash + 1);
      if (!/^[A-Za-z0-9._-]{1,249}$/.test(topic)) fail("name a topic: kafka://host:port/topic");
      const brokers = rest!.slice(0, slash).split(",").map((b) => hostPort(b, fail)).map(({ host, port }) => `${host}:${port}`);
      return kafkaTransport({ brokers, topic }, log);
    }
    case "store":
      return fail("store:// names no place of its own: it is the store this node uses (database.url, else the data dir's SQLite file)");
  }
  return fail("use file://<path>, syslog://host:port[?transport=tcp], kafka://host:port/topic or store://");
}

function hostPort(text: string, fail: (why: string) => never): { host: string; port: number } {
  const match = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/.exec(text);
  const port = Number(match?.[2]);
  if (!match || port < 1 || port > 65535) fail(`${JSON.stringify(text)} is not host:port`);
  return { host: match![1]!.replace(/^\[|\]$/g, ""), port };
}
