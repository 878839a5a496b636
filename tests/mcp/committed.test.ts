import { afterAll, afterEach, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { Type } from "@sinclair/typebox";
import { ActorSystem } from "../../actors/system.ts";
import { openDatabase } from "../../src/db/client.ts";
import { createLogger } from "../../src/log.ts";
import { defineTool, textResult } from "../../src/mcp/define.ts";
import { McpRegistry } from "../../src/mcp/registry.ts";
import { connectMcpServer } from "../../src/mcp/server.ts";
import { refuseCommitsFromThree, refusingKind } from "../fixtures/refused-commit.ts";
import { tempDir } from "../support/temp.ts";
import { failOnStalls } from "../support/loop.ts";

failOnStalls();

const dir = tempDir();
afterAll(() => dir.remove());
const log = createLogger({ level: "error", write: () => {} });
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

let n = 0;

/**
 * A counter whose commits are refused from 3 on (see the fixture), an MCP server whose tool counts it up, as the
 * runtime builds one, and a second connection that sees only what is committed.
 */
async function setup() {
  const file = join(dir.path, `mcp-${n++}.db`);
  const handle = await openDatabase(file);
  await refuseCommitsFromThree(handle);
  const actors = new ActorSystem({ db: handle.db, log, retentionMs: 60_000 });
  actors.register(refusingKind);
  await actors.spawn(refusingKind, "c", { start: 1 });
  const reader = new Database(file, { readonly: true });
  cleanups.push(() => handle.close(), () => actors.stop(), () => reader.close());

  const mcp = new McpRegistry("1", { settled: () => actors.committed() });
  mcp.server("counting").tool(
    defineTool({
      name: "inc",
      description: "Counts one up.",
      input: Type.Object({}),
      handler: async () => {
        // Told, not awaited: the MCP server holds the result until the change is committed.
        actors.tell(refusingKind, "c", { type: "INC" });
        return textResult(String(actors.get(refusingKind, "c")!.getSnapshot().context.count));
      },
    }),
  );
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await connectMcpServer(mcp.get("counting")!, log, serverSide);
  const client = new Client({ name: "test", version: "1" });
  await client.connect(clientSide);
  cleanups.push(() => client.close());
  const committedCount = () => (reader.query("SELECT json_extract(snapshot, '$.context.count') AS n FROM actors WHERE id = 'c'").get() as { n: number }).n;
  return { client, committedCount };
}

test("a tool's result is sent only once the writes it made are committed", async () => {
  const { client, committedCount } = await setup();
  expect(committedCount()).toBe(1);
  expect(await client.callTool({ name: "inc", arguments: {} })).toEqual({ content: [{ type: "text", text: "2" }] });
  expect(committedCount()).toBe(2);
});

test("a tool whose writes cannot be committed answers an error result, and none of them is stored", async () => {
  const { client, committedCount } = await setup();
  await client.callTool({ name: "inc", arguments: {} });
  const refused = await client.callTool({ name: "inc", arguments: {} });
  expect(refused).toEqual({ isError: true, content: [{ type: "text", text: "tool inc: its changes could not be stored" }] });
  expect(committedCount()).toBe(2);
});
