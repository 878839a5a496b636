/** The bot itself: gateway discovery, its user, its guilds, its application (Resources > User, Application; Topics > Gateway). */
import { fail, unknown, type Route } from "../api.ts";

export const userRoutes: Route[] = [
  {
    method: "GET",
    path: "/gateway/bot",
    handler: ({ gatewayUrl }) => ({ url: gatewayUrl, shards: 1, session_start_limit: { total: 1000, remaining: 999, reset_after: 86_400_000, max_concurrency: 1 } }),
  },
  { method: "GET", path: "/users/@me", handler: ({ world }) => world.bot },
  {
    method: "GET",
    path: "/users/@me/guilds",
    handler: ({ world, query }) =>
      [...world.guilds.values()].map((guild) => ({
        id: guild.id,
        name: guild.name,
        icon: guild.icon,
        owner: false,
        permissions: "2199023255551",
        features: guild.features,
        ...(query.get("with_counts") === "true" ? { approximate_member_count: world.members.get(guild.id)?.size ?? 0, approximate_presence_count: 0 } : {}),
      })),
  },
  {
    method: "GET",
    path: "/applications/@me",
    handler: ({ world }) => ({ id: world.applicationId, name: world.bot.username, description: "", bot_public: false, bot_require_code_grant: false, flags: 0, bot: world.bot }),
  },
  {
    method: "GET",
    path: "/users/:user_id",
    handler: ({ world, params }) => world.users.get(params.user_id!) ?? fail(unknown.user()),
  },
];
