/** The catalog capability: the `/v2` REST API, its services, and the order actor kind. */
import type { CapabilityFactory } from "../capability.ts";
import { AuthService, loadSigningKey } from "./auth.ts";
import { catalogErrors } from "./errors.ts";
import { catalogHttp } from "./http.ts";
import { orderKind } from "./order-actor.ts";
import { SharedWindowLimiter, SlidingWindowLimiter, type RateLimiter } from "./rate-limit.ts";
import { CatalogService } from "./service.ts";

export const catalogCapability: CapabilityFactory = ({ config, database, actors, health, log, metrics }) => {
  const settings = config.catalog;
  actors.register(orderKind);
  const catalog = new CatalogService(database.db, actors, settings.public_reads);
  const auth = new AuthService(database.db, loadSigningKey(config), settings);
  // Nodes sharing a store count into one limit there; a single node counts in memory.
  const limiter: RateLimiter = database.shared
    ? new SharedWindowLimiter(database.db, settings.rate_limit_window_seconds)
    : new SlidingWindowLimiter(settings.rate_limit_window_seconds);
  metrics.countFrom({ name: "platform_rate_limit_refusals_total", help: "Requests refused by a rate limit, by surface", labelNames: ["surface"] }, () => [
    { labels: { surface: "catalog" }, value: limiter.refused },
  ]);
  health.register("catalog", () => ({ status: "ok", orders: actors.stats().byKind[orderKind.kind] ?? 0 }));
  const http = catalogHttp({
    catalog,
    auth,
    limiter,
    limits: { authenticated: settings.rate_limit_authenticated, anonymous: settings.rate_limit_anonymous },
    publicReads: settings.public_reads,
    corsOrigins: settings.cors_origins,
  });
  return {
    name: "catalog",
    http,
    errors: catalogErrors,
    endpoints: (base: string) => ({ "catalog API docs": `${base}/v2/docs` }),
    // In the background, a chunk at a time: lists wait for it, every other route is served meanwhile.
    start: () => void catalog.productsIndexed().catch((error) => log.warn("catalog product index not built", { error })),
    stop: () => catalog.close(),
  };
};
catalogCapability.mcpServers = [];
