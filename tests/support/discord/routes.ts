/** Every REST route the stand-in serves, by resource. */
import type { Route } from "./api.ts";
import { channelRoutes } from "./routes/channels.ts";
import { eventRoutes } from "./routes/events.ts";
import { expressionRoutes } from "./routes/expressions.ts";
import { guildRoutes } from "./routes/guilds.ts";
import { messageRoutes } from "./routes/messages.ts";
import { threadRoutes } from "./routes/threads.ts";
import { userRoutes } from "./routes/users.ts";

export const routes: Route[] = [...userRoutes, ...messageRoutes, ...threadRoutes, ...channelRoutes, ...guildRoutes, ...expressionRoutes, ...eventRoutes];
