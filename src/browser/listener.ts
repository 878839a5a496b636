/**
 * The extra listener (`browser.listen`, e.g. the original server's 0.0.0.0:8765): the browser's routes and the
 * combined /health, nothing else, for clients written for the original server. Unknown routes answer in the
 * browser's error shape.
 */
import { Elysia } from "elysia";
import type { Health } from "../health.ts";
import type { Logger } from "../log.ts";
import { BrowserServiceError, errorBody } from "./errors.ts";

export function startListener(address: string, routes: Elysia<any, any, any, any, any, any, any>, health: Health, log: Logger): Elysia | undefined {
  const at = address.lastIndexOf(":");
  const hostname = address.slice(0, at).replace(/^\[|\]$/g, "") || "0.0.0.0";
  const port = Number(address.slice(at + 1));
  const app = new Elysia()
    .onError(({ code, error, request }) => {
      const failure = code === "NOT_FOUND" ? BrowserServiceError.notFound(`No route for ${request.method} ${new URL(request.url).pathname}`) : error;
      const { status, body } = errorBody(failure, log);
      return Response.json(body, { status });
    })
    .get("/health", () => new Response(health.json().json, { headers: { "content-type": "application/json;charset=utf-8" } }))
    .use(routes);
  try {
    const listening = app.listen({ hostname, port }) as unknown as Elysia;
    log.info("browser listener", { url: `http://${listening.server!.hostname}:${listening.server!.port}` });
    return listening;
  } catch (error) {
    // Another process may hold the port: the rest keeps serving.
    log.warn("browser listener not started", { listen: address, error });
    return undefined;
  }
}
