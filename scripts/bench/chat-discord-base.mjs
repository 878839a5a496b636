/**
 * Preloaded into mcp-discord (`node --import`) by the chat benchmark: points discord.js at a Discord-compatible
 * base URL, since mcp-discord has no setting for it. discord.js builds its REST client from @discordjs/rest's
 * exported DefaultRestOptions when a Client is made, so changing them before mcp-discord's code runs is enough;
 * the gateway's address then comes from that base's GET /gateway/bot. Nothing of mcp-discord is changed.
 */
import { createRequire } from "node:module";

const require = createRequire(new URL("../../node_modules/mcp-discord/build/index.js", import.meta.url));
const { DefaultRestOptions } = require(require.resolve("@discordjs/rest", { paths: [require.resolve("discord.js")] }));
if (process.env.DISCORD_API_BASE) DefaultRestOptions.api = process.env.DISCORD_API_BASE;
if (process.env.DISCORD_GLOBAL_REQUESTS_PER_SECOND) DefaultRestOptions.globalRequestsPerSecond = Number(process.env.DISCORD_GLOBAL_REQUESTS_PER_SECOND);
