/**
 * The mTLS front. Bun.serve cannot show a handler the client certificate, so TLS ends here (node:tls): the
 * client chain is verified against the trust bundle, the URI SAN read, and the bytes forwarded to the app's
 * plain listener on loopback over a connection of our own. The app learns the caller by looking up the source
 * port of that connection, which no client controls; nothing the client sends (headers included) is trusted.
 */
import { connect, type Socket } from "node:net";
import { createServer, type Server as TlsServer, type TLSSocket } from "node:tls";
import type { Logger } from "../log.ts";
import type { SvidSource } from "./svid.ts";
import { spiffeIdFromAltNames } from "./certificates.ts";

export interface Upstream {
  hostname: string;
  port: number;
}

/** A connection the front turned away, for the audit trail. */
export interface Refusal {
  reason: string;
  /** The id the certificate claims; unverified, so only for the record. */
  claimedId?: string;
  remoteAddress?: string;
}

export interface MtlsFrontOptions {
  source: SvidSource;
  host: string;
  port: number;
  /** The app's plain listener; undefined until it listens. */
  upstream(): Upstream | undefined;
  log: Logger;
  onRefused?(refusal: Refusal): void;
}

export class MtlsFront {
  /** `address:port` of each of our upstream connections -> the verified SPIFFE id it carries (or none). */
  readonly #peers = new Map<string, string | undefined>();
  readonly #sockets = new Set<Socket>();

  private constructor(
    private readonly server: TlsServer,
    private readonly options: MtlsFrontOptions,
  ) {}

  static async listen(options: MtlsFrontOptions): Promise<MtlsFront> {
    const svid = options.source.current();
    const server = createServer({
      cert: svid.certPem,
      key: svid.keyPem,
      ca: svid.bundlePem,
      requestCert: true,
      // Clients without a certificate may still use the other surfaces; a presented certificate that does
      // not verify is refused below.
      rejectUnauthorized: false,
      minVersion: "TLSv1.2",
    });
    const front = new MtlsFront(server, options);
    server.on("secureConnection", (socket) => front.#accept(socket));
    server.on("tlsClientError", (error) => options.log.debug("TLS handshake failed", { error }));
    options.source.onChange((next) => server.setSecureContext({ cert: next.certPem, key: next.keyPem, ca: next.bundlePem }));
    const { promise, resolve, reject } = Promise.withResolvers<void>();
    server.once("error", reject);
    server.listen(options.port, options.host, () => resolve());
    await promise;
    return front;
  }

  get port(): number {
    return (this.server.address() as { port: number }).port;
  }

  /** The verified SPIFFE id behind an app request arriving from `address:port`, if it came through this front. */
  identityOf(address: string, port: number): string | undefined {
    return this.#peers.get(`${address.replace(/^::ffff:/, "")}:${port}`);
  }

  /** Whether an app request arriving from `address:port` came through this front (over TLS), identified or not. */
  forwarded(address: string, port: number): boolean {
    return this.#peers.has(`${address.replace(/^::ffff:/, "")}:${port}`);
  }

  #accept(socket: TLSSocket) {
    this.#track(socket);
    const peer = socket.getPeerCertificate();
    const presented = peer !== null && typeof peer === "object" && Object.keys(peer).length > 0;
    let identity: string | undefined;
    if (presented) {
      let claimed: string | undefined;
      try {
        claimed = spiffeIdFromAltNames(peer.subjectaltname);
      } catch (error) {
        return this.#refuse(socket, `client certificate carries no valid SPIFFE id: ${(error as Error).message}`);
      }
      if (!socket.authorized)
        return this.#refuse(socket, `untrusted client certificate: ${socket.authorizationError ?? "verification failed"}`, claimed);
      identity = claimed;
    }
    const target = this.options.upstream();
    if (!target) return socket.destroy();
    const upstream = connect({ host: target.hostname, port: target.port });
    this.#track(upstream);
    upstream.once("connect", () => {
      const key = `${upstream.localAddress!.replace(/^::ffff:/, "")}:${upstream.localPort}`;
      this.#peers.set(key, identity);
      upstream.once("close", () => this.#peers.delete(key));
      socket.pipe(upstream);
      upstream.pipe(socket);
    });
    upstream.on("error", () => socket.destroy());
    socket.on("error", () => upstream.destroy());
    upstream.on("close", () => socket.destroy());
    socket.on("close", () => upstream.destroy());
  }

  #refuse(socket: TLSSocket, reason: string, claimedId?: string) {
    this.options.log.warn("mTLS connection refused", { reason, claimedId, remoteAddress: socket.remoteAddress });
    this.options.onRefused?.({ reason, claimedId, remoteAddress: socket.remoteAddress });
    socket.destroy();
  }

  #track(socket: Socket) {
    this.#sockets.add(socket);
    socket.once("close", () => this.#sockets.delete(socket));
  }

  async close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const socket of this.#sockets) socket.destroy();
    await closed;
  }
}

/** Loopback address for reaching a listener bound to `hostname` (a wildcard means any local address). */
export function loopbackUpstream(hostname: string, port: number): Upstream {
  const wildcard = hostname === "0.0.0.0" || hostname === "::" || hostname === "";
  return { hostname: wildcard ? "127.0.0.1" : hostname, port };
}
