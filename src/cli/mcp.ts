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
  options: { print: { type: "boolean" }, ...settingOptions },
  help: { print: "--print              install: show what would be written, write nothing", ...settingHelp },
  async run(values, [name, ...extra]) {
    if (extra.length) throw new UsageError(`unexpected argument '${extra[0]}'`);
    if (values.print && name !== "install") throw new UsageError("--print is for mcp install");
    const { config, log } = settingsFrom(values);
    if (name === "install") return installVerb(config.data_dir, values.print === true);
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

/** Writes (or with `print`, shows) the config that launches this program the way it can be launched later. */
async function installVerb(dataDir: string, print: boolean): Promise<number> {
  const [{ resolve }, { installAssistantConfig }, { launcher }] = await Promise.all([import("node:path"), import("../vault/install.ts"), import("./launcher.ts")]);
  const command = launcher();
  const result = installAssistantConfig(process.cwd(), command, resolve(dataDir), { write: !print });
  if (print) {
    process.stdout.write(`${JSON.stringify({ command, files: result.files }, null, 2)}\n`);
    return 0;
  }
  process.stdout.write(`command ${JSON.stringify(command)}\n`);
  for (const file of result.files) process.stdout.write(`${file.changed ? "updated" : "unchanged"} ${file.path}\n`);
  return 0;
}
