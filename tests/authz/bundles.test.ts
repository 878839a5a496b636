/**
 * OPA bundles into the embedded engine: from a file and from an HTTP URL polled with its ETag, activated
 * whole or not at all, and answered the same as real OPA answers with the same bundle.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { Bundles, readBundle } from "../../src/authz/bundles.ts";
import { opaHttp } from "../../src/authz/http.ts";
import { PolicyStore } from "../../src/authz/policies.ts";
import { RegoEngine } from "../../src/rego/engine.ts";
import { startOpa } from "../support/opa.ts";
import { tempDir } from "../support/temp.ts";
import { quiet } from "./support.ts";

const temp = tempDir();
afterAll(() => temp.remove());

/** A .tar.gz of `files` (made by tar itself, as bundles are made), at a fresh path. */
async function bundle(name: string, files: Record<string, string>): Promise<string> {
  const dir = join(temp.path, `${name}-src`);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  const archive = join(temp.path, `${name}.tar.gz`);
  const tar = Bun.spawn(["tar", "-czf", archive, "-C", dir, "."], { stderr: "pipe" });
  if ((await tar.exited) !== 0) throw new Error(await new Response(tar.stderr).text());
  return archive;
}

const revision1 = {
  ".manifest": JSON.stringify({ revision: "r1", roots: ["shop", "limits"] }),
  "shop/policy.rego": "package shop\n\nallow if input.user in data.limits.admins\n\nmax := data.limits.max\n",
  "limits/data.json": '{"admins": ["ann"], "max": 12345678901234567890}',
};
const revision2 = {
  ".manifest": JSON.stringify({ revision: "r2", roots: ["shop", "limits"] }),
  "shop/policy.rego": "package shop\n\nallow if input.user in data.limits.admins\n\nmax := data.limits.max\n",
  "limits/data.json": JSON.stringify({ admins: ["bob"], max: 3 }),
};

const fresh = () => {
  const engine = new RegoEngine();
  engine.setData({ other: { kept: true } });
  return { engine, store: new PolicyStore(engine, { policyPath: "shop", development: true }) };
};

describe("bundles", () => {
  test("a bundle's parts: manifest, modules and data by folder", async () => {
    const contents = readBundle(readFileSync(await bundle("parts", revision1)));
    expect(contents.revision).toBe("r1");
    expect(contents.roots).toEqual([["shop"], ["limits"]]);
    expect(contents.modules.map((m) => m.id)).toEqual(["shop/policy.rego"]);
    expect(contents.data.map((d) => d.path)).toEqual([["limits"]]);
  });

  test("from a file: activated at start, its data under its roots, other data kept", async () => {
    const { engine, store } = fresh();
    const bundles = new Bundles(store, [{ name: "b", source: await bundle("file", revision1), pollingSeconds: 60 }], quiet);
    expect(bundles.ready()).toBe(false);
    await bundles.start();
    expect(bundles.ready()).toBe(true);
    expect(engine.evaluate("shop/allow", { user: "ann" })).toEqual({ result: true });
    expect(engine.evaluate("shop/max")).toEqual({ result: 12345678901234567890n });
    expect(engine.evaluate("other")).toEqual({ result: { kept: true } });
    expect(bundles.status().b).toMatchObject({ name: "b", active_revision: "r1" });
    bundles.stop();
  });

  test("a bundle that does not compile or is not an archive changes nothing", async () => {
    const { engine, store } = fresh();
    const source = join(temp.path, "moving.tar.gz");
    writeFileSync(source, readFileSync(await bundle("good", revision1)));
    const bundles = new Bundles(store, [{ name: "b", source, pollingSeconds: 60 }], quiet);
    await bundles.start();
    const version = engine.version;
    writeFileSync(source, readFileSync(await bundle("broken", { ...revision2, "shop/policy.rego": "package shop\n\nallow if {\n" })));
    expect(await bundles.refresh({ name: "b", source, pollingSeconds: 60 })).toBe(false);
    writeFileSync(source, "not a tarball");
    expect(await bundles.refresh({ name: "b", source, pollingSeconds: 60 })).toBe(false);
    expect(engine.version).toBe(version);
    expect(engine.evaluate("shop/allow", { user: "ann" })).toEqual({ result: true });
    expect(bundles.status().b).toMatchObject({ active_revision: "r1", code: "bundle_error" });
  });

  test("from a URL: fetched with its ETag, a 304 changes nothing, a new revision is activated", async () => {
    let archive = readFileSync(await bundle("http1", revision1));
    let etag = '"r1"';
    const seen: (string | null)[] = [];
    const server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch(request) {
        seen.push(request.headers.get("if-none-match"));
        if (request.headers.get("if-none-match") === etag) return new Response(null, { status: 304 });
        return new Response(archive, { headers: { etag } });
      },
    });
    try {
      const { engine, store } = fresh();
      const source = { name: "b", source: `http://127.0.0.1:${server.port}/bundle.tar.gz`, pollingSeconds: 3600 };
      const bundles = new Bundles(store, [source], quiet);
      await bundles.start();
      expect(engine.evaluate("shop/allow", { user: "ann" })).toEqual({ result: true });
      expect(await bundles.refresh(source)).toBe(false);
      archive = readFileSync(await bundle("http2", revision2));
      etag = '"r2"';
      expect(await bundles.refresh(source)).toBe(true);
      expect(engine.evaluate("shop/allow", { user: "ann" })).toEqual({});
      expect(engine.evaluate("shop/allow", { user: "bob" })).toEqual({ result: true });
      expect(seen).toEqual([null, '"r1"', '"r1"']);
      bundles.stop();
    } finally {
      server.stop(true);
    }
  });

  test("the OPA-compatible API answers as real OPA does with the same bundle", async () => {
    const archive = await bundle("same", revision1);
    const opa = await startOpa(["--bundle", archive]);
    const { store } = fresh();
    store.engine.setData({});
    const bundles = new Bundles(store, [{ name: "b", source: archive, pollingSeconds: 60 }], quiet);
    await bundles.start();
    const ours = opaHttp(store, quiet, { bundles }).listen({ hostname: "127.0.0.1", port: 0 });
    try {
      for (const [method, path, body] of [
        ["GET", "/v1/data/limits", undefined],
        ["POST", "/v1/data/shop", '{"input": {"user": "ann"}}'],
        ["POST", "/v1/data/shop/allow", '{"input": {"user": "bob"}}'],
        ["GET", "/health?bundles", undefined],
      ] as const) {
        const theirs = await fetch(opa.url + path, { method, body });
        const mine = await fetch(`http://127.0.0.1:${ours.server!.port}${path}`, { method, body });
        expect({ status: mine.status, text: await mine.text() }).toEqual({ status: theirs.status, text: await theirs.text() });
      }
    } finally {
      await ours.stop(true);
      await opa.stop();
      bundles.stop();
    }
  });
});
