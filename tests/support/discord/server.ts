/**
 * A Discord stand-in on loopback for the chat server's tests and benchmark: REST v10 (real HTTP, Bun.serve) and
 * the gateway (a real WebSocket on the same port), speaking Discord's wire format as its documentation gives it.
 * It authenticates `Authorization: Bot <token>`, keeps rate-limit buckets (and counts requests that break one),
 * logs every request, and holds a small world that the routes read and change.
 */
import type { Server } from "bun";
import { ApiError, type ApiRequest, type Route } from "./api.ts";
import { GatewayStandIn, type SocketData } from "./gateway.ts";
import { RateLimits } from "./limits.ts";
import { routes as allRoutes } from "./routes.ts";
import { seedWorld, type Json, type Seed } from "./world.ts";

export interface StandInOptions {
  token?: string;
  /** The per-route limit of buckets whose route does not set one, per window. */
  limit?: number;
  windowMs?: number;
  /** Discord's global limit for a bot, per second. */
  globalPerSecond?: number;
  heartbeatIntervalMs?: number;
}

export interface LoggedRequest {
  method: string;
  /** The path under /api/v10, query excluded. */
  path: string;
  /** The route template it matched, e.g. `POST /channels/:channel_id/messages`. */
  route?: string;
  status: number;
  body?: Json;
  reason?: string;
  authorized: boolean;
  /** When it arrived (epoch ms). */
  at: number;
}

export interface DiscordStandIn extends Seed {
  /** Base for `chat.api_base` (the client appends /v10). */
  api: string;
  gatewayUrl: string;
  token: string;
  gateway: GatewayStandIn;
  limits: RateLimits;
  requests: LoggedRequest[];
  /** Milliseconds each REST answer waits, as a round trip to Discord would (0, at once, by default). */
  latencyMs: number;
  /** Overrides a route's bucket limit, e.g. to drive a burst into it. */
  setLimit(route: string, limit: number, windowMs: number): void;
  /** Refuses the bot's token from now on: 401 on REST, 4004 on the gateway. */
  revokeToken(): void;
  /** Answers the next `count` requests with a 5xx (a Discord outage), before routing them. */
  failNext(count: number, status?: number): void;
  stop(): Promise<void>;
}

interface Compiled extends Route {
  pattern: RegExp;
  names: string[];
}

const compile = (route: Route): Compiled => {
  const names: string[] = [];
  const source = route.path.replace(/:(\w+)/g, (_, name: string) => (names.push(name), "([^/]+)"));
  return { ...route, pattern: new RegExp(`^${source}$`), names };
};

/** The top-level resource a bucket is counted per (Rate Limits: channel, guild or webhook). */
const majorParameter = (params: Record<string, string>) => params.channel_id ?? params.guild_id ?? params.webhook_id ?? "";

export async function startDiscord(options: StandInOptions = {}): Promise<DiscordStandIn> {
  const token = options.token ?? "MTIz.stand-in.bot-token-0123456789abcdef";
  let revoked = false;
  const defaults = { limit: options.limit ?? 1000, windowMs: options.windowMs ?? 1000 };
  const compiled = allRoutes.map(compile);
  const limitOverrides = new Map<string, { limit: number; windowMs: number }>();
  const limits = new RateLimits(options.globalPerSecond ?? 50);
  const requests: LoggedRequest[] = [];
  const seed = seedWorld();
  let failures: { count: number; status: number } = { count: 0, status: 502 };
  let server: Server<SocketData>;
  const base = () => `127.0.0.1:${server.port}`;
  const gateway = new GatewayStandIn(
    seed.world,
    () => (revoked ? "" : token),
    () => ({ gateway: `ws://${base()}/gateway`, resume: `ws://${base()}/gateway-resume` }),
    options.heartbeatIntervalMs ?? 41_250,
  );

  const handle = async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    const path = url.pathname.slice("/api/v10".length) || "/";
    const authorized = !revoked && request.headers.get("authorization") === `Bot ${token}`;
    const entry: LoggedRequest = { method: request.method, path, status: 0, authorized, at: Date.now() };
    requests.push(entry);
    const answer = async (response: Response) => {
      entry.status = response.status;
      if (standIn.latencyMs > 0) await Bun.sleep(standIn.latencyMs);
      return response;
    };
    if (failures.count > 0) {
      failures.count--;
      return answer(Response.json({ message: "upstream connect error", code: 0 }, { status: failures.status }));
    }
    let match: { route: Compiled; params: Record<string, string> } | undefined;
    for (const route of compiled) {
      if (route.method !== request.method) continue;
      const found = route.pattern.exec(path);
      if (found) {
        match = { route, params: Object.fromEntries(route.names.map((name, i) => [name, decodeURIComponent(found[i + 1]!)])) };
        break;
      }
    }
    if (!match) return answer(Response.json({ message: "404: Not Found", code: 0 }, { status: 404 }));
    const { route, params } = match;
    if (!authorized && route.auth !== false) return answer(Response.json({ message: "401: Unauthorized", code: 0 }, { status: 401 }));
    entry.route = `${route.method} ${route.path}`;
    const rule = { bucket: route.bucket?.bucket ?? `${route.method}:${route.path}`, ...defaults, ...route.bucket, ...limitOverrides.get(entry.route) };
    const verdict = limits.take(rule, majorParameter(params));
    if (verdict.tooMany) return answer(verdict.tooMany);
    try {
      const { body, files } = await readBody(request);
      const reason = request.headers.get("x-audit-log-reason");
      entry.body = body;
      entry.reason = reason === null ? undefined : decodeURIComponent(reason);
      const apiRequest: ApiRequest = { params, query: url.searchParams, body, files, reason: entry.reason, world: seed.world, gatewayUrl: `ws://${base()}/gateway` };
      const result = await route.handler(apiRequest);
      const headers = { ...verdict.headers };
      if (result instanceof Response) return answer(result);
      if (result === null || result === undefined) return answer(new Response(null, { status: 204, headers }));
      return answer(Response.json(result, { headers }));
    } catch (error) {
      if (error instanceof ApiError) return answer(error.toResponse());
      throw error;
    }
  };

  server = Bun.serve<SocketData>({
    hostname: "127.0.0.1",
    port: 0,
    fetch(request, srv) {
      const { pathname } = new URL(request.url);
      if (pathname === "/gateway" || pathname === "/gateway-resume") return gateway.upgrade(request, srv, pathname === "/gateway-resume");
      if (pathname.startsWith("/api/v10/")) return handle(request);
      return Response.json({ message: "404: Not Found", code: 0 }, { status: 404 });
    },
    websocket: gateway.handlers,
  });

  const standIn: DiscordStandIn = {
    ...seed,
    api: `http://${base()}/api`,
    gatewayUrl: `ws://${base()}/gateway`,
    token,
    gateway,
    limits,
    requests,
    latencyMs: 0,
    setLimit: (route, limit, windowMs) => void limitOverrides.set(route, { limit, windowMs }),
    revokeToken: () => void (revoked = true),
    failNext: (count, status = 502) => void (failures = { count, status }),
    async stop() {
      gateway.close();
      await server.stop(true);
    },
  };
  return standIn;
}

/** JSON, or multipart with `payload_json` and `files[n]` parts (Reference > Uploading Files). */
async function readBody(request: Request): Promise<{ body: Json; files: File[] }> {
  const type = request.headers.get("content-type") ?? "";
  if (type.startsWith("multipart/form-data")) {
    const form = await request.formData();
    const files: File[] = [];
    let body: Json = {};
    for (const [name, value] of form) {
      if (typeof value !== "string") files.push(value);
      else if (name === "payload_json") body = { ...body, ...JSON.parse(value) };
      else body[name] = value;
    }
    return { body, files };
  }
  const text = await request.text();
  if (!text) return { body: {}, files: [] };
  try {
    return { body: JSON.parse(text), files: [] };
  } catch {
    throw new ApiError(400, 50109, "The request body contains invalid JSON.");
  }
}
