/**
 * Resumability for one Streamable HTTP session: every SSE event the transport writes gets an id and is kept, so a
 * client whose stream broke can GET the session with `Last-Event-ID` and receive what it missed on that stream.
 * One store per session (ids are counters, unique within it); the last `limit` events are kept, which covers a
 * blink of the network, not a client gone for an hour.
 */
import type { EventId, EventStore, StreamId } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

export class SessionEventStore implements EventStore {
  /** In the order written; a Map's order is its insertion order. */
  readonly #events = new Map<EventId, { streamId: StreamId; message: JSONRPCMessage }>();
  #next = 0;

  constructor(private readonly limit = 1000) {}

  async storeEvent(streamId: StreamId, message: JSONRPCMessage): Promise<EventId> {
    const id = String(++this.#next);
    this.#events.set(id, { streamId, message });
    if (this.#events.size > this.limit) this.#events.delete(this.#events.keys().next().value!);
    return id;
  }

  /** Undefined for an id this session never gave or has forgotten: the transport answers it 400. */
  async getStreamIdForEventId(eventId: EventId): Promise<StreamId | undefined> {
    return this.#events.get(eventId)?.streamId;
  }

  async replayEventsAfter(lastEventId: EventId, { send }: { send: (id: EventId, message: JSONRPCMessage) => Promise<void> }): Promise<StreamId> {
    const last = this.#events.get(lastEventId);
    if (!last) throw new Error(`event ${lastEventId} is not known to this session`);
    let after = false;
    for (const [id, { streamId, message }] of this.#events) {
      if (id === lastEventId) after = true;
      // A priming event (stored as `{}`) only marks where a stream began; it carries nothing to replay.
      else if (after && streamId === last.streamId && "jsonrpc" in message) await send(id, message);
    }
    return last.streamId;
  }
}
