import { afterEach, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { Type } from "@sinclair/typebox";
import { ActorSystem } from "../../actors/system.ts";
import { tablesOf } from "../../src/db/client.ts";
import { createLogger } from "../../src/log.ts";
import { defineTool, textResult } from "../../src/mcp/define.ts";
import { McpRegistry } from "../../src/mcp/registry.ts";
import { connectMcpServer } from "../../src/mcp/server.ts";
import { refuseCommitsFromThree, refusingKind } from "../fixtures/refused-commit.ts";
import { stores, storesForFile, type StoreKind } from "../support/stores.ts";
import { failOnStalls } from "../support/loop.ts";

failOnStalls();

const fixture = storesForFile();
const log = createLogger({ level: "error", write: () => {} });
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/**
 * A counter whose commits are refused from 3 on (see the fixture), an MCP server whose tool counts it up, as the
 * runtime builds one, and a second connection that sees only what is committed.
 */
async function setup(kind: StoreKind) {
  const store = await fixture.fresh(kind);
  const handle = await store.open();
  await refuseCommitsFromThree(handle);
  const actors = new ActorSystem({ db: handle.db, log, retentionMs: 60_000 });
  actors.register(refusingKind);
  await actors.spawn(refusingKind, "c", { start: 1 });
  const reader = await store.open();
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
  const committedCount = async () => {
    const { actors: table } = tablesOf(reader.db);
    const [row] = await reader.db.select({ snapshot: table.snapshot }).from(table).where(eq(table.id, "c"));
    return (row!.snapshot as { context: { count: number } }).context.count;
  };
  return { client, committedCount };
}

describe.each(stores)("on %s", (kind) => {
  test("a tool's result is sent only once the writes it made are committed", async () => {
    const { client, committedCount } = await setup(kind);
    expect(await committedCount()).toBe(1);
    expect(await client.callTool({ name: "inc", arguments: {} })).toEqual({ content: [{ type: "text", text: "2" }] });
    expect(await committedCount()).toBe(2);
  });

  test("a tool whose writes cannot be committed answers an error result, and none of them is stored", async () => {
    const { client, committedCount } = await setup(kind);
    await client.callTool({ name: "inc", arguments: {} });
    const refused = await client.callTool({ name: "inc", arguments: {} });
    expect(refused).toEqual({ isError: true, content: [{ type: "text", text: "tool inc: its changes could not be stored" }] });
    expect(await committedCount()).toBe(2);
  });
});
