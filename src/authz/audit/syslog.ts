/**
 * `syslog://host:port` (UDP, one message per datagram) or `syslog://host:port?transport=tcp` (RFC 6587 octet
 * counting). Messages are RFC 5424: facility "log audit" (13), severity notice for denials and info for grants,
 * the record as UTF-8 JSON in MSG. The socket modules are loaded on the first delivery, so a platform that
 * audits elsewhere never loads them.
 */
import type { Socket as UdpSocket } from "node:dgram";
import type { Socket } from "node:net";
import { hostname } from "node:os";
import type { AuditRecord, AuditTransport } from "./log.ts";

const facility = 13;
const bom = "\uFEFF";
const host = hostname().replace(/[^\x21-\x7e]/g, "").slice(0, 255) || "-";

export function formatSyslog(record: AuditRecord): string {
  const severity = record.decision === "denied" ? 5 : 6;
  return `<${facility * 8 + severity}>1 ${record.timestamp} ${host} platform ${process.pid} authz - ${bom}${JSON.stringify(record)}`;
}

export function syslogTransport(address: { host: string; port: number; transport: "udp" | "tcp" }): AuditTransport {
  return address.transport === "udp" ? udp(address) : tcp(address);
}

function udp({ host: target, port }: { host: string; port: number }): AuditTransport {
  let opened: Promise<UdpSocket> | undefined;
  return {
    description: `syslog://${target}:${port}`,
    async deliver(records) {
      opened ??= Promise.all([import("node:dgram"), import("node:net")]).then(([{ createSocket }, { isIPv6 }]) =>
        createSocket(isIPv6(target) ? "udp6" : "udp4").unref(),
      );
      const socket = await opened;
      for (const record of records) {
        const { promise, resolve, reject } = Promise.withResolvers<void>();
        socket.send(Buffer.from(formatSyslog(record)), port, target, (error) => (error ? reject(error) : resolve()));
        await promise;
      }
    },
    async close() {
      (await opened)?.close();
    },
  };
}

function tcp({ host: target, port }: { host: string; port: number }): AuditTransport {
  let socket: Socket | undefined;
  const open = async () => {
    if (socket && !socket.destroyed) return socket;
    const { connect } = await import("node:net");
    const next = connect({ host: target, port });
    const { promise, resolve, reject } = Promise.withResolvers<void>();
    next.once("connect", resolve).once("error", reject);
    next.setTimeout(5000, () => next.destroy(new Error(`syslog ${target}:${port} timed out`)));
    await promise;
    next.setTimeout(0);
    next.on("error", () => next.destroy());
    next.unref();
    return (socket = next);
  };
  return {
    description: `syslog://${target}:${port}?transport=tcp`,
    async deliver(records) {
      const connection = await open();
      const frames = records.map((record) => {
        const message = Buffer.from(formatSyslog(record));
        return Buffer.concat([Buffer.from(`${message.byteLength} `), message]);
      });
      const { promise, resolve, reject } = Promise.withResolvers<void>();
      connection.write(Buffer.concat(frames), (error) => (error ? reject(error) : resolve()));
      await promise;
    },
    async close() {
      socket?.end();
    },
  };
}
