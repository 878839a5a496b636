/**
 * The bot's session as the actor system knows it, and the gateway intents it asks for. Apart from gateway.ts, so
 * that a server without a token registers the kind (and restores what a previous process left) without loading
 * the gateway's library.
 */
import { GatewayIntentBits } from "discord-api-types/gateway/v10";
import { chatSessionMachine } from "../../actors/chat-session.machine.ts";
import type { ActorKind } from "../../actors/system.ts";

export const chatSessionKind: ActorKind<typeof chatSessionMachine> = {
  kind: "chat-session",
  machine: chatSessionMachine,
  // A session still live in the store belonged to a process that stopped without closing it; its socket is gone.
  restored: (actor) => actor.send({ type: "STOP" }),
};

/** Gateway intents by the names Discord's documentation gives them; unknown names are refused at start-up. */
export function intentBits(names: string[]): number {
  let bits = 0;
  for (const name of names) {
    const bit = GatewayIntentBits[name as keyof typeof GatewayIntentBits];
    if (bit === undefined) throw new Error(`chat.intents: unknown intent ${name}; known: ${Object.keys(GatewayIntentBits).filter((k) => Number.isNaN(Number(k))).join(", ")}`);
    bits |= bit;
  }
  return bits;
}
