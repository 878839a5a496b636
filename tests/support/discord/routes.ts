/** Every REST route the stand-in serves, by resource. */
import type { Route } from "./api.ts";
import { userRoutes } from "./routes/users.ts";

export const routes: Route[] = [...userRoutes];
