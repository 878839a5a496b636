/**
 * Where this workload's X.509 SVID comes from: files kept fresh by spiffe-helper or a SPIRE agent (reloaded
 * when they change), or the development CA (renewed at half-life). Both hand out the same `Svid` shape.
 */
import { type FSWatcher, readFileSync, watch } from "node:fs";
import { basename, dirname, resolve } from "node:path";
import type { ClientTls, IdentityProvider } from "../authz/model.ts";
import type { Logger } from "../log.ts";
import type { DevCa } from "./dev-ca.ts";
import { SvidError } from "./errors.ts";
import { peerMatcher } from "./spiffe.ts";
import { assertKeyMatches, notAfterOf, spiffeIdFromAltNames, spiffeIdOfCertificate } from "./certificates.ts";

export interface Svid {
  readonly spiffeId: string;
  readonly certPem: string;
  readonly keyPem: string;
  /** PEM CA certificates trusted for peers. */
  readonly bundlePem: string;
  readonly notAfter: Date;
}

export interface SvidSource {
  current(): Svid;
  /** Called with each new SVID after a rotation; returns an unsubscribe function. */
  onChange(listener: (svid: Svid) => void): () => void;
  close(): void;
}

abstract class Rotating implements SvidSource {
  readonly #listeners = new Set<(svid: Svid) => void>();
  constructor(protected svid: Svid) {}
  current = () => this.svid;
  onChange(listener: (svid: Svid) => void) {
    this.#listeners.add(listener);
    return () => void this.#listeners.delete(listener);
  }
  protected replace(svid: Svid) {
    this.svid = svid;
    for (const listener of this.#listeners) listener(svid);
  }
  abstract close(): void;
}

export interface SvidFiles {
  certFile: string;
  keyFile: string;
  bundleFile: string;
}

/** Reads and checks the three files; throws SvidError naming the file that is wrong. */
export function readSvidFiles({ certFile, keyFile, bundleFile }: SvidFiles): Svid {
  const read = (file: string, what: string) => {
    try {
      return readFileSync(file, "utf8");
    } catch (error) {
      throw new SvidError(`cannot read the SVID ${what} ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    }
  };
  const certPem = read(certFile, "certificate");
  const keyPem = read(keyFile, "key");
  const bundlePem = read(bundleFile, "trust bundle");
  let spiffeId: string;
  try {
    spiffeId = spiffeIdOfCertificate(certPem);
    assertKeyMatches(certPem, keyPem);
  } catch (error) {
    throw new SvidError(`${certFile}: ${(error as Error).message}`);
  }
  if (!bundlePem.includes("-----BEGIN CERTIFICATE-----")) throw new SvidError(`${bundleFile}: no PEM certificate in the trust bundle`);
  return Object.freeze({ spiffeId, certPem, keyPem, bundlePem, notAfter: notAfterOf(certPem) });
}

/**
 * An SVID on disk. Writers replace the files one at a time (often by rename), so every change in their
 * folders triggers a re-read; a set that does not hold together yet (key of the old cert) is skipped and the
 * previous SVID stays in service until the next change completes it.
 */
export class FileSvidSource extends Rotating {
  readonly #watchers: FSWatcher[];
  #pending = false;

  constructor(
    private readonly files: SvidFiles,
    private readonly log?: Logger,
  ) {
    super(readSvidFiles(files));
    const paths = [files.certFile, files.keyFile, files.bundleFile].map((f) => resolve(f));
    const names = new Set(paths.map((p) => basename(p)));
    this.#watchers = [...new Set(paths.map((p) => dirname(p)))].map((dir) =>
      watch(dir, (_event, name) => {
        if (name === null || names.has(basename(String(name)))) this.#scheduleReload();
      }),
    );
  }

  #scheduleReload() {
    if (this.#pending) return;
    this.#pending = true;
    setImmediate(() => {
      this.#pending = false;
      this.reload();
    });
  }

  /** Re-reads the files now; true when a new SVID went into service. */
  reload(): boolean {
    let next: Svid;
    try {
      next = readSvidFiles(this.files);
    } catch (error) {
      this.log?.warn("SVID files changed but do not hold together yet; keeping the current SVID", { error });
      return false;
    }
    const now = this.current();
    if (next.certPem === now.certPem && next.keyPem === now.keyPem && next.bundlePem === now.bundlePem) return false;
    this.replace(next);
    this.log?.info("SVID reloaded", { spiffeId: next.spiffeId, notAfter: next.notAfter.toISOString() });
    return true;
  }

  close() {
    for (const watcher of this.#watchers) watcher.close();
  }
}

const serverNames = { dnsNames: ["localhost"], ipAddresses: ["127.0.0.1", "::1"] };

/** The server's own SVID from the development CA, never written to disk, renewed at half its lifetime. */
export class DevSvidSource extends Rotating {
  #timer?: ReturnType<typeof setTimeout>;

  private constructor(
    private readonly ca: DevCa,
    private readonly spiffeId: string,
    private readonly validitySeconds: number,
    svid: Svid,
    private readonly log?: Logger,
  ) {
    super(svid);
    this.#arm();
  }

  static async start(ca: DevCa, spiffeId: string, { validitySeconds = 86_400, log }: { validitySeconds?: number; log?: Logger } = {}) {
    return new DevSvidSource(ca, spiffeId, validitySeconds, await DevSvidSource.#issue(ca, spiffeId, validitySeconds), log);
  }

  static async #issue(ca: DevCa, spiffeId: string, validitySeconds: number): Promise<Svid> {
    const { certPem, keyPem } = await ca.issue(spiffeId, { validitySeconds, ...serverNames });
    return Object.freeze({ spiffeId, certPem, keyPem, bundlePem: ca.bundlePem, notAfter: notAfterOf(certPem) });
  }

  #arm() {
    this.#timer = setTimeout(() => {
      DevSvidSource.#issue(this.ca, this.spiffeId, this.validitySeconds).then(
        (svid) => (this.replace(svid), this.#arm()),
        (error) => (this.log?.error("cannot renew the development SVID", { error }), this.#arm()),
      );
    }, (this.validitySeconds * 1000) / 2);
    this.#timer.unref();
  }

  close() {
    clearTimeout(this.#timer);
  }
}

/**
 * This workload as a client: its SVID for `fetch(url, { tls })`, and a server check that accepts only the
 * SPIFFE id the caller expects (an exact id or a `.../*` pattern). Host names do not matter to SPIFFE.
 */
export function svidIdentityProvider(source: SvidSource): IdentityProvider {
  return {
    get spiffeId() {
      return source.current().spiffeId;
    },
    clientTls(expectedPeer?: string): ClientTls {
      const { certPem, keyPem, bundlePem } = source.current();
      const matches = expectedPeer === undefined ? undefined : peerMatcher(expectedPeer);
      return {
        cert: certPem,
        key: keyPem,
        ca: bundlePem,
        checkServerIdentity(_hostname, certificate) {
          let presented: string;
          try {
            presented = spiffeIdFromAltNames((certificate as { subjectaltname?: string } | undefined)?.subjectaltname);
          } catch (error) {
            return new SvidError(`the server presented no valid SPIFFE id: ${(error as Error).message}`);
          }
          if (matches && !matches(presented)) return new SvidError(`the server is ${presented}, not the expected ${expectedPeer}`);
          return undefined;
        },
      };
    },
  };
}
