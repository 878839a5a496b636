/** The comparison server: a bare Bun.serve answering /health with the same JSON document the platform sends. */
import { readFileSync } from "node:fs";

const body = readFileSync(process.argv[2]!, "utf8");
const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch: () => new Response(body, { headers: { "content-type": "application/json" } }),
});
console.log(server.port);
