/** `platform serve`: the one server, until SIGTERM or SIGINT, then a graceful stop. */
import { hostname } from "node:os";
import type { Config } from "../config.ts";
import { exclusively } from "../listen.ts";
import { formatFor, writeToPerson } from "../log.ts";
import type { RunningRuntime } from "../runtime.ts";
import { settingHelp, settingOptions, settingsFrom } from "./settings.ts";
import type { Verb } from "./verb.ts";

export const serveVerb: Verb = {
  name: "serve",
  summary: "start the server (the default verb)",
  options: { port: { type: "string" }, host: { type: "string" }, ...settingOptions },
  help: {
    port: "--port <n>           port to listen on (PORT, default 8443; 0 picks a free one)",
    host: "--host <addr>        address to listen on (HOST, default 0.0.0.0)",
    ...settingHelp,
  },
  async run(values) {
    const { config, log } = settingsFrom(values);
    // Loaded here, not at the top, so `--help` and `version` start without the whole server.
    const [{ startRuntime }, { buildApp }] = await Promise.all([import("../runtime.ts"), import("../server.ts")]);
    const runtime = await startRuntime(config, log);
    const { app, closeMcp } = buildApp(runtime);
    try {
      app.listen(exclusively(config.server.host, config.server.port));
    } catch (error) {
      // A port in use or an address this machine does not have: say so, and leave nothing running.
      await closeMcp();
      await runtime.close();
      const { message, code } = error as NodeJS.ErrnoException;
      throw new Error(`cannot listen on ${config.server.host}:${config.server.port}: ${message}${code && !message.includes(code) ? ` (${code})` : ""}`);
    }
    const server = app.server!;

    const stopped = Promise.withResolvers<void>();
    const shutdown = async (signal: string) => {
      log.info("shutting down", { signal });
      // Stop accepting; in-flight requests get until the bound, then their connections are closed.
      const drained = server.stop(false);
      const bound = setTimeout(() => void server.stop(true), config.server.shutdown_timeout_ms);
      await drained;
      clearTimeout(bound);
      await closeMcp();
      await runtime.close();
      log.info("stopped");
      stopped.resolve();
    };
    process.once("SIGTERM", () => void shutdown("SIGTERM"));
    process.once("SIGINT", () => void shutdown("SIGINT"));
    // Said once a signal is handled: whoever waits for this line may stop the server gracefully at once.
    const url = `http://${server.hostname}:${server.port}`;
    const wildcard = ["0.0.0.0", "::"].includes(server.hostname ?? "");
    // Other machines cannot reach a wildcard address's "localhost": the node goes by its host name in the store.
    // Written before the node says it listens, so whoever waits for that line finds it listed.
    await runtime.cluster.advertise(`http://${wildcard ? hostname() : server.hostname}:${server.port}`);
    const urls = liveUrls(runtime, `http://${wildcard ? "localhost" : server.hostname}:${server.port}`);
    if (formatFor(config.log.format) === "pretty") writeToPerson(banner(config, url, urls));
    else log.info("listening", { url, environment: config.environment, urls, stop: "SIGTERM or SIGINT (Ctrl+C) stops it gracefully" });
    await stopped.promise;
    return 0;
  },
};

/** Every URL a person can open now: the runtime's own, each MCP server's, and what each capability offers. */
function liveUrls(runtime: RunningRuntime, base: string): Record<string, string> {
  const urls: Record<string, string> = { health: `${base}/health`, metrics: `${base}/metrics`, "MCP (default server)": `${base}/mcp` };
  for (const name of runtime.mcp.names()) urls[`MCP server ${name}`] = `${base}/mcp/${name}`;
  for (const capability of runtime.capabilities) Object.assign(urls, capability.endpoints?.(base));
  return urls;
}

/** What a person at a terminal reads once the server is up. */
function banner(config: Config, url: string, urls: Record<string, string>): string {
  const width = Math.max(...Object.keys(urls).map((name) => name.length));
  return [
    "",
    `Platform is listening on ${url} (${config.environment}; data in ${config.data_dir})`,
    ...Object.entries(urls).map(([name, link]) => `  ${name.padEnd(width)}  ${link}`),
    "Press Ctrl+C (or send SIGTERM) to stop it gracefully.",
    "",
    "",
  ].join("\n");
}
