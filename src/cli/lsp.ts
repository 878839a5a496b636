/** `platform lsp browser [--tcp --port N]`: the playbook language server, over stdio or on a TCP port. */
import { UsageError, type Verb } from "./verb.ts";

export const lspVerb: Verb = {
  name: "lsp",
  summary: "serve a language server: `browser` for playbook files (stdio, or --tcp --port N)",
  args: "<browser>",
  options: { tcp: { type: "boolean" }, port: { type: "string" }, host: { type: "string" } },
  help: {
    tcp: "--tcp                listen on TCP instead of stdio",
    port: "--port <n>           TCP port (default 2087; 0 picks a free one)",
    host: "--host <addr>        TCP address (default 127.0.0.1)",
  },
  async run(values, [name, ...extra]) {
    if (name !== "browser") throw new UsageError(name ? `no language server named '${name}'; have: browser` : "say which language server: browser");
    if (extra.length) throw new UsageError(`unexpected argument '${extra[0]}'`);
    const { listenLanguage, serveLanguage } = await import("../browser/lsp/server.ts");
    if (!values.tcp) {
      await serveLanguage(process.stdin, process.stdout);
      return 0;
    }
    const port = Number(values.port ?? 2087);
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be a port number, not ${values.port}`);
    const server = await listenLanguage(port, (values.host as string | undefined) ?? "127.0.0.1");
    const address = server.address() as { address: string; port: number };
    // The port goes to stderr as a log line, so that whoever started it (port 0) can read it.
    process.stderr.write(`${JSON.stringify({ level: "info", message: "playbook language server listening", host: address.address, port: address.port, timestamp: new Date().toISOString() })}\n`);
    const stopped = Promise.withResolvers<void>();
    process.once("SIGTERM", stopped.resolve);
    process.once("SIGINT", stopped.resolve);
    await stopped.promise;
    server.close();
    return 0;
  },
};
