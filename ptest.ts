const T = (l: string, t: number) => console.log(l.padEnd(28), (performance.now() - t).toFixed(1), "ms");
let t = performance.now();
const { loadConfig } = await import("./src/config.ts"); const { createLogger } = await import("./src/log.ts");
const { openDatabase } = await import("./src/db/client.ts"); T("import config/log/db", t);
t = performance.now(); const { capabilities } = await import("./src/capabilities.ts"); T("import capabilities", t);
t = performance.now(); const { buildApp } = await import("./src/server.ts"); T("import server", t);
const { ActorSystem } = await import("./actors/system.ts"); const { Health } = await import("./src/health.ts"); const { McpRegistry } = await import("./src/mcp/registry.ts");
const dir = process.argv[2]!;
const config = loadConfig({ env: { PLATFORM_DATA_DIR: dir, PLATFORM_VAULT__SETUP_PORT: "0" } });
const log = createLogger({ level: "error" });
t = performance.now(); const database = openDatabase(dir + "/platform.db"); T("open db + migrate", t);
const actors = new ActorSystem({ db: database.db, log, retentionMs: 1000 });
const runtime = { config, log, database, actors, mcp: new McpRegistry("1"), health: new Health("1") };
const caps = [];
for (const f of capabilities) { t = performance.now(); caps.push(await f(runtime as any)); T("factory " + caps.at(-1).name, t); }
t = performance.now(); actors.restore(); T("restore", t);
for (const c of caps) { t = performance.now(); await c.start?.(); T("start " + c.name, t); }
t = performance.now(); const { app } = buildApp({ ...runtime, capabilities: caps } as any); T("buildApp", t);
t = performance.now(); app.listen({ hostname: "127.0.0.1", port: 0 }); T("listen", t);
t = performance.now(); await fetch(`http://127.0.0.1:${app.server!.port}/health`); T("first health", t);
process.exit(0);
