/**
 * Where the bot token comes from: CHAT_TOKEN (chat.token), or the vault service named by chat.token_from_vault,
 * read in-process so the token never sits in the environment. Neither: the server runs and every tool says how
 * to set one.
 */
import type { Config } from "../config.ts";
import type { Db } from "../db/client.ts";
import type { BotToken } from "./service.ts";

export async function botToken(config: Config, db: Db): Promise<BotToken> {
  const { token, token_from_vault: service } = config.chat;
  if (token) return { token };
  if (!service) return { missing: "neither CHAT_TOKEN nor chat.token_from_vault is set" };
  // The vault's code loads only for a token kept there.
  const { storedCredential } = await import("../vault/service.ts");
  try {
    const stored = (await storedCredential(db, config, service))?.token;
    return stored ? { token: stored } : { missing: `the vault has no token for service ${service}` };
  } catch (error) {
    return { missing: `the vault could not give the token for service ${service}: ${(error as Error).message}` };
  }
}
