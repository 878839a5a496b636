import { afterAll, afterEach, describe, expect, test } from "bun:test";
import { readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DevCa, identityPassphrase } from "../../src/identity/dev-ca.ts";
import { SvidError } from "../../src/identity/errors.ts";
import { MtlsFront } from "../../src/identity/mtls.ts";
import { DevSvidSource, FileSvidSource, readSvidFiles, type Svid, svidIdentityProvider } from "../../src/identity/svid.ts";
import { spiffeIdOfCertificate } from "../../src/identity/certificates.ts";
import { createLogger } from "../../src/log.ts";
import { tempDir } from "../support/temp.ts";
import { testDomain } from "./support.ts";

const dirs: ReturnType<typeof tempDir>[] = [];
const cleanups: (() => unknown)[] = [];
const newDir = () => (dirs.push(tempDir()), dirs.at(-1)!.path);
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});
afterAll(() => dirs.forEach((d) => d.remove()));

describe("SVID files", () => {
  test("a complete set loads with its SPIFFE id and expiry", async () => {
    const domain = await testDomain();
    const files = domain.writeSvid(newDir(), await domain.issue("spiffe://platform.local/agent/a"));
    const svid = readSvidFiles(files);
    expect(svid.spiffeId).toBe("spiffe://platform.local/agent/a");
    expect(svid.notAfter.getTime()).toBeGreaterThan(Date.now());
    expect(Object.isFrozen(svid)).toBe(true);
  });

  test("a missing file, a key of another certificate, or a certificate without a SPIFFE id is refused by name", async () => {
    const domain = await testDomain();
    const dir = newDir();
    const files = domain.writeSvid(dir, await domain.issue("spiffe://platform.local/agent/a"));
    expect(() => readSvidFiles({ ...files, keyFile: join(dir, "absent.key") })).toThrow(/cannot read the SVID key .*absent\.key: ENOENT/);
    writeFileSync(files.keyFile, (await domain.issue("spiffe://platform.local/agent/b")).keyPem);
    expect(() => readSvidFiles(files)).toThrow(/does not belong to the certificate/);
    writeFileSync(files.certFile, domain.ca.certPem.replace("MII", "XXX"));
    expect(() => readSvidFiles(files)).toThrow(SvidError);
  });

  test("a rotation on disk is picked up, and the mTLS front serves the new SVID", async () => {
    const domain = await testDomain();
    const dir = newDir();
    const source = new FileSvidSource(domain.writeSvid(dir, await domain.issue("spiffe://platform.local/server/v1")));
    const front = await MtlsFront.listen({ source, host: "127.0.0.1", port: 0, upstream: () => undefined, log: createLogger({ level: "error" }) });
    cleanups.push(() => front.close(), () => source.close());
    const clientSource = new FileSvidSource(domain.writeSvid(newDir(), await domain.issue("spiffe://platform.local/agent/a")));
    cleanups.push(() => clientSource.close());
    const client = svidIdentityProvider(clientSource);
    const handshake = (expected: string) =>
      fetch(`https://127.0.0.1:${front.port}/`, { tls: client.clientTls(expected) }).then(
        () => "connected",
        (error: Error) => error.message,
      );
    // The front closes at once (no upstream), but only after the handshake accepted the server's id.
    expect(await handshake("spiffe://platform.local/server/v2")).toMatch(/not the expected/);

    const rotated = Promise.withResolvers<Svid>();
    source.onChange(rotated.resolve);
    domain.writeSvid(dir, await domain.issue("spiffe://platform.local/server/v2"));
    expect((await rotated.promise).spiffeId).toBe("spiffe://platform.local/server/v2");
    expect(source.current().spiffeId).toBe("spiffe://platform.local/server/v2");
    expect(await handshake("spiffe://platform.local/server/v1")).toMatch(/not the expected/);
    expect(await handshake("spiffe://platform.local/server/v2")).not.toMatch(/not the expected/);
  });

  test("a half-written rotation keeps the current SVID in service", async () => {
    const domain = await testDomain();
    const dir = newDir();
    const files = domain.writeSvid(dir, await domain.issue("spiffe://platform.local/agent/a"));
    const source = new FileSvidSource(files);
    cleanups.push(() => source.close());
    writeFileSync(files.certFile, (await domain.issue("spiffe://platform.local/agent/b")).certPem);
    expect(source.reload()).toBe(false);
    expect(source.current().spiffeId).toBe("spiffe://platform.local/agent/a");
  });
});

describe("development CA", () => {
  test("is created once, with its key encrypted at rest, and reopened with the same passphrase", async () => {
    const dataDir = newDir();
    const passphrase = identityPassphrase({ dataDir, configured: "", development: true });
    expect(identityPassphrase({ dataDir, configured: "", development: true })).toBe(passphrase);
    expect(statSync(join(dataDir, "identity", "passphrase")).mode & 0o777).toBe(0o600);
    const ca = await DevCa.open({ dataDir, trustDomain: "dev.local", passphrase, create: true });
    const key = readFileSync(join(dataDir, "identity", "ca.key.enc"), "utf8");
    expect(key).toStartWith("-----BEGIN ENCRYPTED PRIVATE KEY-----");
    expect(readdirSync(join(dataDir, "identity")).sort()).toEqual(["ca.crt", "ca.key.enc", "passphrase"]);

    const again = await DevCa.open({ dataDir, trustDomain: "dev.local", passphrase, create: false });
    expect(again.bundlePem).toBe(ca.bundlePem);
    const svid = await again.issue("spiffe://dev.local/agent/x", { validitySeconds: 60 });
    expect(spiffeIdOfCertificate(svid.certPem)).toBe("spiffe://dev.local/agent/x");
  });

  test("refuses a wrong passphrase, another trust domain, a missing CA, and ids outside its domain", async () => {
    const dataDir = newDir();
    await expect(DevCa.open({ dataDir, trustDomain: "dev.local", passphrase: "p", create: false })).rejects.toThrow(/no development CA/);
    const ca = await DevCa.open({ dataDir, trustDomain: "dev.local", passphrase: "right", create: true });
    await expect(DevCa.open({ dataDir, trustDomain: "dev.local", passphrase: "wrong", create: false })).rejects.toThrow(/wrong passphrase/);
    await expect(DevCa.open({ dataDir, trustDomain: "other.local", passphrase: "right", create: false })).rejects.toThrow(
      /for trust domain dev.local, not other.local/,
    );
    expect(() => ca.issue("spiffe://other.local/x", { validitySeconds: 60 })).toThrow(/not in this CA's trust domain/);
    expect(() => identityPassphrase({ dataDir: newDir(), configured: "", development: false })).toThrow(/key_passphrase must be set/);
  });

  test("gives the server an in-memory SVID under the CA", async () => {
    const dataDir = newDir();
    const ca = await DevCa.open({ dataDir, trustDomain: "dev.local", passphrase: "p", create: true });
    const source = await DevSvidSource.start(ca, "spiffe://dev.local/platform");
    cleanups.push(() => source.close());
    expect(source.current()).toMatchObject({ spiffeId: "spiffe://dev.local/platform", bundlePem: ca.bundlePem });
    expect(readdirSync(join(dataDir, "identity")).sort()).toEqual(["ca.crt", "ca.key.enc"]);
  });
});
