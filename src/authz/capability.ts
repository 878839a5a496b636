/**
 * Identity and authorization as one capability: the SVID, the mTLS front, the enforcer with its provider and
 * audit trail, and the OPA-compatible listener. Other capabilities (A2A) reach the enforcer, `identify` and
 * the client identity through `securityOf(runtime)`, whatever order they start in; until this capability has
 * started, the enforcer denies and nobody is identified.
 */
import { Elysia } from "elysia";
import type { Server } from "bun";
import type { CapabilityFactory, Runtime } from "../capability.ts";
import type { MtlsFront } from "../identity/mtls.ts";
import { configuredSpiffeId, openSvidSource } from "../identity/service.ts";
import { svidIdentityProvider, type SvidSource } from "../identity/svid.ts";
import { exclusively } from "../listen.ts";
import { RegoEngine } from "../rego/engine.ts";
import { auditTransport } from "./audit/destination.ts";
import { AuditLog } from "./audit/log.ts";
import { Bundles } from "./bundles.ts";
import { opaHttp } from "./http.ts";
import type { AuthzDecision, AuthzEnforcer, IdentityProvider } from "./model.ts";
import { checkRemote, loadPolicies, PolicyStore } from "./policies.ts";
import { embeddedProvider, EngineUnreachable, opaProvider } from "./provider.ts";
import { AuthzService } from "./service.ts";

export interface Security {
  /** Runs inside the guarded surfaces; application code never calls it. */
  enforcer: AuthzEnforcer;
  /** The verified SPIFFE id behind a request on the main listener; undefined unless it came through mTLS. */
  identify(request: Request): string | undefined;
  /** Whether a request on the main listener came through the mTLS front: the client spoke https to it. */
  overTls(request: Request): boolean;
  /** This workload as an mTLS client; undefined when it has no SVID. */
  identityProvider(): IdentityProvider | undefined;
}

interface Parts {
  service?: AuthzService;
  front?: MtlsFront;
  source?: SvidSource;
  appServer?: Server<unknown>;
}

const hubs = new WeakMap<Runtime, { security: Security; parts: Parts }>();

const notStarted: AuthzDecision = Object.freeze({ allowed: false, reason: "denied: authorization has not started", auditId: "none" });

function hub(runtime: Runtime) {
  let found = hubs.get(runtime);
  if (!found) {
    const parts: Parts = {};
    const security: Security = {
      enforcer: {
        checkInbound: (...args) => parts.service?.checkInbound(...args) ?? Promise.resolve(notStarted),
        checkOutbound: (...args) => parts.service?.checkOutbound(...args) ?? Promise.resolve(notStarted),
      },
      identify(request) {
        const address = parts.front && parts.appServer?.requestIP(request);
        return address ? parts.front!.identityOf(address.address, address.port) : undefined;
      },
      overTls(request) {
        const address = parts.front && parts.appServer?.requestIP(request);
        return address ? parts.front!.forwarded(address.address, address.port) : false;
      },
      identityProvider: () => (parts.source ? svidIdentityProvider(parts.source) : undefined),
    };
    hubs.set(runtime, (found = { security, parts }));
  }
  return found;
}

export const securityOf = (runtime: Runtime): Security => hub(runtime).security;

/** How often a remote policy engine is asked whether it is up (OPA's GET /health). */
const engineProbeMs = 10_000;

export const authzCapability: CapabilityFactory = async (runtime) => {
  const { config, log: rootLog, health } = runtime;
  const log = rootLog.child({ capability: "authz" });
  const { authorization: settings, identity } = config;
  const development = config.environment === "development";
  const { parts, security } = hub(runtime);

  const source = (parts.source = await openSvidSource(config, log));
  const needsEngine = settings.provider === "embedded" || settings.opa_api.enabled || settings.bundle.source !== "";
  const engine = needsEngine ? new RegoEngine() : undefined;
  if (engine) loadPolicies(engine, { dir: settings.policy_dir, policyPath: settings.policy_path, development });
  const provider =
    settings.provider === "embedded"
      ? embeddedProvider(engine!, settings.policy_path)
      : opaProvider({ endpoint: settings.engine_endpoint, policyPath: settings.policy_path, timeoutMs: settings.timeout_ms });
  if (settings.provider === "opa")
    await checkRemote(provider, { policyPath: settings.policy_path, development }).catch((error) => {
      if (!(error instanceof EngineUnreachable)) throw error;
      log.warn("policy engine unreachable at start-up; decisions are denied until it answers", { endpoint: settings.engine_endpoint, error });
    });

  const audit = settings.audit.enabled
    ? new AuditLog(auditTransport(settings.audit.destination, { dataDir: config.data_dir, log, database: runtime.database, node: runtime.actors.node }), {
        capacity: settings.audit.buffer_size,
        log,
      })
    : undefined;
  const service = (parts.service = new AuthzService({
    provider,
    policyPath: settings.policy_path,
    selfId: () => source?.current().spiffeId ?? configuredSpiffeId(config),
    requireIdentity: identity.mtls.required,
    audit,
    cacheTtlMs: settings.cache_ttl_ms,
    log,
  }));
  let opaServer: Server<unknown> | undefined;
  let prober: ReturnType<typeof setInterval> | undefined;
  const store = engine && new PolicyStore(engine, { policyPath: settings.policy_path, development });
  const bundles =
    store && settings.bundle.source
      ? new Bundles(store, [{ name: settings.bundle.name, source: settings.bundle.source, pollingSeconds: settings.bundle.polling_seconds }], log)
      : undefined;

  runtime.metrics.countFrom({ name: "platform_policy_decisions_total", help: "Authorization decisions, by result", labelNames: ["result"] }, () => {
    const { allowed, denied } = service.stats();
    return [{ labels: { result: "allowed" }, value: allowed }, { labels: { result: "denied" }, value: denied }];
  });
  health.register("authorization", () => {
    const auditStats = audit?.stats();
    const troubled = auditStats && (auditStats.dropped > 0 || auditStats.pending > 0 && auditStats.failedAttempts > 0);
    const svid = source?.current();
    // A remote engine that did not answer last time means every decision now is a denial: say so, and why.
    const engineState = provider.reachability?.();
    return {
      status: troubled || (engineState && !engineState.reachable) ? "degraded" : "ok",
      ...service.stats(),
      ...(engineState ? { engine: { endpoint: settings.engine_endpoint, ...engineState } } : {}),
      policyVersion: engine?.version ?? null,
      audit: auditStats ?? { enabled: false },
      identity: svid ? { spiffeId: svid.spiffeId, notAfter: svid.notAfter.toISOString() } : null,
      mtls: parts.front ? { port: parts.front.port } : null,
      opaApi: opaServer ? { port: opaServer.port } : null,
    };
  });

  return {
    name: "authz",
    identify: security.identify,
    endpoints: () => ({
      ...(parts.front ? { "mTLS (A2A with SPIFFE identities)": `https://${identity.mtls.host}:${parts.front.port}` } : {}),
      ...(opaServer ? { "OPA-compatible API": `http://${settings.opa_api.host}:${opaServer.port}` } : {}),
    }),
    // Learns the main listener when it starts, so the mTLS front knows where to forward and whom to identify.
    http: new Elysia({ name: "identity.peers" }).onStart(({ server }) => {
      parts.appServer = server ?? undefined;
    }),
    async start() {
      // Between decisions too, /health should know whether a remote engine would answer.
      if (provider.probe) {
        prober = setInterval(() => void provider.probe!().catch(() => {}), engineProbeMs);
        prober.unref();
      }
      if (identity.mtls.enabled) {
        if (!source) throw new Error("identity.mtls.enabled needs an SVID: set identity.svid.* or run in development");
        // Loaded only here: node:tls and node:net cost a start without mTLS several milliseconds.
        const { loopbackUpstream, MtlsFront } = await import("../identity/mtls.ts");
        parts.front = await MtlsFront.listen({
          source,
          host: identity.mtls.host,
          port: identity.mtls.port,
          upstream: () => (parts.appServer ? loopbackUpstream(parts.appServer.hostname ?? "", parts.appServer.port ?? 0) : undefined),
          log,
          onRefused: ({ reason, claimedId, remoteAddress }) =>
            service.recordRefusal({ action: "mtls:connect", reason: `denied: ${reason}`, context: { claimed_spiffe_id: claimedId ?? null, remote_address: remoteAddress ?? null } }),
        });
        log.info("mTLS listening", { port: parts.front.port, spiffeId: source.current().spiffeId });
      }
      await bundles?.start();
      if (settings.opa_api.enabled) {
        const app = opaHttp(store!, log, { defaultDecision: settings.opa_api.default_decision, decisionIds: settings.opa_api.decision_ids, bundles, maxJsonDepth: config.server.max_json_depth });
        app.listen(exclusively(settings.opa_api.host, settings.opa_api.port));
        opaServer = app.server ?? undefined;
        log.info("OPA-compatible API listening", { url: `http://${settings.opa_api.host}:${opaServer?.port}` });
      }
    },
    async stop() {
      clearInterval(prober);
      bundles?.stop();
      await opaServer?.stop(true);
      await parts.front?.close();
      await audit?.close();
      source?.close();
      parts.service = undefined;
    },
  };
};
authzCapability.mcpServers = [];
