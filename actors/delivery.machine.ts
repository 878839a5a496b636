/**
 * One push notification on its way to a client's webhook: sending -> delivered, or back to waiting (with the next
 * attempt's time as the persisted `deadline`) after a failed attempt, until the attempts run out (failed). The
 * push service makes each attempt while the actor is `sending` and reports it (ATTEMPTED); the actor system sends
 * DEADLINE when a wait is over, also after a restart. Pure configuration: no I/O here.
 */
import { assign, setup } from "xstate";
import type { DeadlineEvent } from "./system.ts";

export interface DeliveryInput {
  taskId: string;
  configId: string;
  /** The JSON body to POST, in the protocol version the config was made with. */
  body: string;
  maxAttempts: number;
  /** The wait after the first failed attempt; each further one doubles it (up to `maxDelayMs`). */
  retryMs: number;
  maxDelayMs: number;
}

export interface AttemptOutcome {
  /** 1 for the first attempt. */
  n: number;
  at: number;
  ok: boolean;
  /** The webhook's HTTP status, when it answered. */
  status?: number;
  error?: string;
}

export interface DeliveryContext extends DeliveryInput {
  attempts: number;
  last?: AttemptOutcome;
  deadline?: number;
}

export type DeliveryEvent = { type: "ATTEMPTED"; at: number; ok: boolean; status?: number; error?: string } | { type: "ABANDON"; at: number; error: string } | DeadlineEvent;

const outcome = (context: DeliveryContext, event: DeliveryEvent): AttemptOutcome | undefined =>
  event.type === "ATTEMPTED" ? { n: context.attempts + 1, at: event.at, ok: event.ok, status: event.status, error: event.error } : undefined;

export const deliveryMachine = setup({
  types: { context: {} as DeliveryContext, input: {} as DeliveryInput, events: {} as DeliveryEvent },
  guards: {
    succeeded: ({ event }) => event.type === "ATTEMPTED" && event.ok,
    attemptsLeft: ({ context }) => context.attempts + 1 < context.maxAttempts,
  },
  actions: {
    record: assign(({ context, event }) => ({ attempts: context.attempts + 1, last: outcome(context, event), deadline: undefined })),
    // 1x, 2x, 4x ... the first wait, capped.
    scheduleRetry: assign(({ context, event }) => ({
      attempts: context.attempts + 1,
      last: outcome(context, event),
      deadline: (event as { at: number }).at + Math.min(context.maxDelayMs, context.retryMs * 2 ** context.attempts),
    })),
    abandon: assign(({ context, event }) => ({
      last: { n: context.attempts, at: (event as { at: number }).at, ok: false, error: event.type === "ABANDON" ? event.error : undefined },
      deadline: undefined,
    })),
    wake: assign({ deadline: undefined }),
  },
}).createMachine({
  id: "push-delivery",
  context: ({ input }) => ({ ...input, attempts: 0 }),
  initial: "sending",
  states: {
    sending: {
      on: {
        ATTEMPTED: [
          { guard: "succeeded", target: "delivered", actions: "record" },
          { guard: "attemptsLeft", target: "waiting", actions: "scheduleRetry" },
          { target: "failed", actions: "record" },
        ],
        ABANDON: { target: "failed", actions: "abandon" },
      },
    },
    waiting: {
      on: { DEADLINE: { target: "sending", actions: "wake" }, ABANDON: { target: "failed", actions: "abandon" } },
    },
    delivered: { type: "final" },
    failed: { type: "final" },
  },
});

export type DeliveryState = "sending" | "waiting" | "delivered" | "failed";
