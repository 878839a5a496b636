/**
 * `kafka://host:port[,host:port...]/topic` through kafkajs. kafkajs's own retries are off: the audit buffer
 * retries with backoff and counts, so a down broker never holds up a request. kafkajs logs go to our logger
 * (never stdout, which belongs to MCP stdio). kafkajs itself is loaded on the first delivery, so a platform
 * that audits elsewhere never loads it.
 */
import type { Producer } from "kafkajs";
import type { Logger } from "../../log.ts";
import type { AuditTransport } from "./log.ts";

export function kafkaTransport({ brokers, topic }: { brokers: string[]; topic: string }, log: Logger, timeoutMs = 3000): AuditTransport {
  const connect = async () => {
    const { Kafka, logLevel } = await import("kafkajs");
    const kafka = new Kafka({
      clientId: "platform-audit",
      brokers,
      connectionTimeout: timeoutMs,
      requestTimeout: timeoutMs,
      retry: { retries: 0 },
      logLevel: logLevel.WARN,
      logCreator: () => ({ namespace, log: entry }) => log.debug("kafka", { namespace, message: entry.message }),
    });
    const next = kafka.producer({ allowAutoTopicCreation: false, retry: { retries: 0 } });
    await next.connect();
    return next;
  };
  let producer: Producer | undefined;
  return {
    description: `kafka://${brokers.join(",")}/${topic}`,
    async deliver(records) {
      producer ??= await connect();
      try {
        await producer.send({ topic, acks: -1, messages: records.map((r) => ({ key: r.audit_id, value: JSON.stringify(r) })) });
      } catch (error) {
        // A fresh connection next time: the old one may be half-broken.
        await producer.disconnect().catch(() => undefined);
        producer = undefined;
        throw error;
      }
    },
    async close() {
      await producer?.disconnect();
    },
  };
}
