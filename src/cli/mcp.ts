/** `platform mcp <server>`: one MCP server over stdio, for assistants that launch it as a subprocess. */
import { settingHelp, settingOptions, settingsFrom } from "./settings.ts";
import { UsageError, type Verb } from "./verb.ts";

export const mcpVerb: Verb = {
  name: "mcp",
  summary: "serve an MCP server over stdio (default: the platform server)",
  args: "[server]",
  options: settingOptions,
  help: settingHelp,
  async run(values, [name, ...extra]) {
    if (extra.length) throw new UsageError(`unexpected argument '${extra[0]}'`);
    const { config, log } = settingsFrom(values);
    const [{ startRuntime }, { serveStdio }] = await Promise.all([import("../runtime.ts"), import("../mcp/stdio.ts")]);
    const runtime = await startRuntime(config, log);
    const server = name ?? config.mcp.default_server;
    const spec = runtime.mcp.get(server);
    if (!spec) {
      await runtime.close();
      throw new UsageError(`no MCP server named '${server}'; have: ${runtime.mcp.names().join(", ")}`);
    }
    await serveStdio(spec, log);
    await runtime.close();
    return 0;
  },
};
