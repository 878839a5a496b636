/** `platform serve`: the one server, until SIGTERM or SIGINT, then a graceful stop. */
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
    app.listen({ hostname: config.server.host, port: config.server.port });
    const server = app.server!;
    log.info("listening", { url: `http://${server.hostname}:${server.port}`, environment: config.environment });

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
    await stopped.promise;
    return 0;
  },
};
