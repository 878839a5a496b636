/**
 * `platform mcp <server>`: one MCP server over stdio, for assistants that launch it as a subprocess.
 * `platform mcp install`: writes the vault server and hooks into the assistant's project config.
 */
import { settingHelp, settingOptions, settingsFrom } from "./settings.ts";
import { UsageError, type Verb } from "./verb.ts";

export const mcpVerb: Verb = {
  name: "mcp",
  summary: "serve an MCP server over stdio (default: the platform server), or `install` into a project",
  args: "[server|install]",
  options: settingOptions,
  help: settingHelp,
  async run(values, [name, ...extra]) {
    if (extra.length) throw new UsageError(`unexpected argument '${extra[0]}'`);
    const { config, log } = settingsFrom(values);
    if (name === "install") return installVerb(config.data_dir);
    const [{ startRuntime }, { serveStdio }, { capabilities }] = await Promise.all([
      import("../runtime.ts"),
      import("../mcp/stdio.ts"),
      import("../capabilities.ts"),
    ]);
    const server = name ?? config.mcp.default_server;
    const runtime = await startRuntime(config, log, capabilities, { role: "guest", mcpServer: server });
    const spec = runtime.mcp.get(server);
    if (!spec) {
      const known = new Set([...runtime.mcp.names(), ...capabilities.flatMap((factory) => factory.mcpServers ?? [])]);
      await runtime.close();
      throw new UsageError(`no MCP server named '${server}'; have: ${[...known].join(", ")}`);
    }
    await serveStdio(spec, log);
    await runtime.close();
    return 0;
  },
};

async function installVerb(dataDir: string): Promise<number> {
  const [{ resolve }, { installAssistantConfig }] = await Promise.all([import("node:path"), import("../vault/install.ts")]);
  // Compiled: the executable itself; from source: bun with this entry point.
  const command = Bun.main.startsWith("/$bunfs/") || !Bun.main.endsWith(".ts") ? [process.execPath] : [process.execPath, Bun.main];
  const result = installAssistantConfig(process.cwd(), command, resolve(dataDir));
  for (const file of result.files) process.stdout.write(`${file.changed ? "updated" : "unchanged"} ${file.path}\n`);
  return 0;
}
