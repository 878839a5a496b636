/** Every REST route the stand-in serves, by resource. */
import type { Route } from "./api.ts";
import { channelRoutes } from "./routes/channels.ts";
import { messageRoutes } from "./routes/messages.ts";
import { userRoutes } from "./routes/users.ts";

export const routes: Route[] = [...userRoutes, ...messageRoutes, ...channelRoutes];
