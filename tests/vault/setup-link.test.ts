/** The setup page's one-time link across a crash: a restarted server never honours a link an earlier one printed. */
import { afterAll, expect, test } from "bun:test";
import { join } from "node:path";
import { serve, type Running } from "../support/cli.ts";
import { tempDir } from "../support/temp.ts";

const dir = tempDir();
afterAll(() => dir.remove());

const setupLinkOf = async (server: Running) =>
  new URL((JSON.parse(await server.waitForLine((l) => l.includes('"message":"vault setup page"'))) as { setupLink: string }).setupLink);

test("after SIGKILL and a restart, the old link is refused and the new one opens a session", async () => {
  const data = join(dir.path, "data");
  const env = { PLATFORM_VAULT__SETUP_PORT: "0" };
  const first = await serve(data, { env });
  const old = await setupLinkOf(first);
  expect(await first.stop("SIGKILL")).not.toBe(0);

  const second = await serve(data, { env });
  try {
    const fresh = await setupLinkOf(second);
    expect(fresh.searchParams.get("once")).not.toBe(old.searchParams.get("once"));
    // The old link's token, shown to the new listener: refused, and it opens no session.
    const replayed = new URL(fresh);
    replayed.searchParams.set("once", old.searchParams.get("once")!);
    const refused = await fetch(replayed, { redirect: "manual" });
    expect(refused.status).toBe(401);
    expect(refused.headers.get("set-cookie")).toBeNull();
    const opened = await fetch(fresh, { redirect: "manual" });
    expect(opened.status).toBe(303);
    expect(opened.headers.get("set-cookie")).toContain("platform_vault_setup=");
  } finally {
    expect(await second.stop()).toBe(0);
  }
});
