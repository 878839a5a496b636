/**
 * Server-Sent Events of a task's persisted changes: pushed as the actor stores them (no polling), ended after
 * the final state, resumable from the revision a client last saw. Each protocol chooses how a change is
 * written (`frame`); the native stream's frames are cached per change, so many subscribers cost one encoding.
 */
import type { TaskManager, TaskUpdate } from "./service.ts";

/** Writes one change as SSE bytes (one or more events); `previous` is the change sent before it, if any. */
export type Frame = (update: TaskUpdate, previous: TaskUpdate | undefined) => Uint8Array;

export const encoder = new TextEncoder();
const keepAliveMs = 15_000;
/** How long an EventSource waits before reconnecting (with Last-Event-ID). */
const retryMs = 2000;

/**
 * The SSE response for task `id`, from the change after `afterRevision` (0: from the current state). The task
 * must exist: a caller answers an unknown id before opening a stream.
 */
export function taskEventStream(manager: TaskManager, id: string, afterRevision: number, frame: Frame, signal?: AbortSignal): Response {
  let cleanup = () => {};
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      let last: TaskUpdate | undefined;
      let closed = false;
      const close = () => {
        if (closed) return;
        closed = true;
        cleanup();
        try {
          controller.close();
        } catch {
          // already closed by the client going away
        }
      };
      const send = (update: TaskUpdate) => {
        if (closed || (last && update.revision <= last.revision) || update.revision <= afterRevision) return;
        controller.enqueue(frame(update, last));
        last = update;
        if (update.final) close();
      };
      // Written at once so the response starts even when nothing new has happened yet.
      controller.enqueue(encoder.encode(`retry: ${retryMs}\n\n`));
      // Watch before reading the present, so nothing stored in between is missed; `send` drops repeats.
      const unwatch = await manager.watch(id, send);
      const streamClosed = manager.streamOpened();
      const keepAlive = setInterval(() => !closed && controller.enqueue(encoder.encode(": keep-alive\n\n")), keepAliveMs);
      keepAlive.unref();
      const onAbort = () => close();
      signal?.addEventListener("abort", onAbort, { once: true });
      cleanup = () => (unwatch?.(), streamClosed(), clearInterval(keepAlive), signal?.removeEventListener("abort", onAbort));

      const missed = afterRevision > 0 ? await manager.changesSince(id, afterRevision).catch(() => undefined) : undefined;
      if (missed) for (const update of missed) send(update);
      else {
        const current = await manager.current(id).catch(() => undefined);
        if (current) send(current);
      }
      if (!unwatch) close(); // final or gone: nothing more will come
    },
    cancel() {
      cleanup();
    },
  });
  return new Response(body, {
    headers: { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" },
  });
}

/** The native stream: `task.update` for each change, `task.final` for the last; ids are revisions. */
const nativeFrames = new WeakMap<TaskUpdate, Uint8Array>();
export const nativeFrame: Frame = (update) => {
  let bytes = nativeFrames.get(update);
  if (!bytes) {
    const event = update.final ? "task.final" : "task.update";
    bytes = encoder.encode(`id: ${update.revision}\nevent: ${event}\ndata: ${JSON.stringify(update.task)}\n\n`);
    nativeFrames.set(update, bytes);
  }
  return bytes;
};

/** The revision a client last saw, from `Last-Event-ID`; 0 when absent or not a revision. */
export function lastEventRevision(request: Request): number {
  const value = Number(request.headers.get("last-event-id"));
  return Number.isSafeInteger(value) && value > 0 ? value : 0;
}
