import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Elysia } from "elysia";
import { createLogger } from "../../src/log.ts";
import { loopbackUpstream, MtlsFront, type Refusal } from "../../src/identity/mtls.ts";
import { FileSvidSource, svidIdentityProvider } from "../../src/identity/svid.ts";
import { tempDir } from "../support/temp.ts";
import { testDomain, type TestDomain } from "./support.ts";

const serverId = "spiffe://platform.local/platform";
const callerId = "spiffe://platform.local/agent/caller";
const dir = tempDir();
let domain: TestDomain;
let source: FileSvidSource;
let front: MtlsFront;
const app = new Elysia().get("/whoami", ({ request, server }) => {
  const ip = server!.requestIP(request);
  return { caller: (ip && front.identityOf(ip.address, ip.port)) ?? null, header: request.headers.get("x-spiffe-id") };
});
let plainUrl = "";
let tlsUrl = "";
const refusals: Refusal[] = [];
let nextRefusal = Promise.withResolvers<Refusal>();

beforeAll(async () => {
  domain = await testDomain();
  source = new FileSvidSource(domain.writeSvid(dir.path, await domain.issue(serverId)));
  app.listen({ hostname: "127.0.0.1", port: 0 });
  plainUrl = `http://127.0.0.1:${app.server!.port}`;
  front = await MtlsFront.listen({
    source,
    host: "127.0.0.1",
    port: 0,
    upstream: () => loopbackUpstream(app.server!.hostname!, app.server!.port!),
    log: createLogger({ level: "error" }),
    onRefused: (refusal) => (refusals.push(refusal), nextRefusal.resolve(refusal)),
  });
  tlsUrl = `https://127.0.0.1:${front.port}`;
});

afterAll(async () => {
  await front.close();
  await app.stop(true);
  source.close();
  dir.remove();
});

async function clientTls(id: string, validity?: { notBefore?: Date; notAfter?: Date }, issuer = domain) {
  const svid = await issuer.issue(id, validity);
  return { cert: svid.certPem, key: svid.keyPem, ca: domain.ca.certPem };
}

const whoami = async (url: string, init: BunFetchRequestInit = {}) => (await fetch(`${url}/whoami`, init)).json() as Promise<{ caller: string | null; header: string | null }>;

describe("mTLS front", () => {
  test("a client with a trusted SVID reaches the app as its SPIFFE id", async () => {
    expect(await whoami(tlsUrl, { tls: await clientTls(callerId) })).toEqual({ caller: callerId, header: null });
  });

  test("an identity header is never believed, on either listener", async () => {
    const forged = { "x-spiffe-id": "spiffe://platform.local/admin", "x-forwarded-client-cert": "URI=spiffe://platform.local/admin" };
    expect(await whoami(plainUrl, { headers: forged })).toMatchObject({ caller: null, header: "spiffe://platform.local/admin" });
    expect(await whoami(tlsUrl, { headers: forged, tls: { ca: domain.ca.certPem } })).toMatchObject({ caller: null });
    expect(await whoami(tlsUrl, { headers: forged, tls: await clientTls(callerId) })).toMatchObject({ caller: callerId });
  });

  test("TLS without a client certificate still reaches the app, with no identity", async () => {
    expect(await whoami(tlsUrl, { tls: { ca: domain.ca.certPem } })).toEqual({ caller: null, header: null });
  });

  test("a certificate from another CA is refused before any byte reaches the app", async () => {
    nextRefusal = Promise.withResolvers();
    const stranger = await testDomain();
    const tls = await clientTls(callerId, undefined, stranger);
    await expect(fetch(`${tlsUrl}/whoami`, { tls })).rejects.toThrow();
    const refusal = await nextRefusal.promise;
    expect(refusal.reason).toStartWith("untrusted client certificate");
    expect(refusal.claimedId).toBe(callerId);
  });

  test("an expired certificate is refused", async () => {
    nextRefusal = Promise.withResolvers();
    const tls = await clientTls(callerId, { notBefore: new Date(Date.now() - 7200_000), notAfter: new Date(Date.now() - 3600_000) });
    await expect(fetch(`${tlsUrl}/whoami`, { tls })).rejects.toThrow();
    expect((await nextRefusal.promise).reason).toMatch(/untrusted client certificate: .*EXPIRED/i);
  });

  test("a client that expects another server id refuses to talk", async () => {
    const clientDir = tempDir();
    const clientSource = new FileSvidSource(domain.writeSvid(clientDir.path, await domain.issue(callerId)));
    const provider = svidIdentityProvider(clientSource);
    expect(provider.spiffeId).toBe(callerId);
    const ok = await whoami(tlsUrl, { tls: provider.clientTls(serverId) });
    expect(ok.caller).toBe(callerId);
    const under = await whoami(tlsUrl, { tls: provider.clientTls("spiffe://platform.local/*") });
    expect(under.caller).toBe(callerId);
    await expect(fetch(`${tlsUrl}/whoami`, { tls: provider.clientTls("spiffe://platform.local/agent/other") })).rejects.toThrow(
      /not the expected spiffe:\/\/platform.local\/agent\/other/,
    );
    clientSource.close();
    clientDir.remove();
  });
});
