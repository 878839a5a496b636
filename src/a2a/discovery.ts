/**
 * Finding agents: fetch and validate their cards (/.well-known/agent.json), cache them for `cacheTtl`
 * seconds, and answer which of them offer a capability. Concurrent look-ups of one URL share one request.
 */
import type { ClientTls } from "../authz/model.ts";
import { AgentCard } from "./card.ts";
import { A2ATimeoutError, DiscoveryError, ValueError } from "./errors.ts";

export const cardPath = "/.well-known/agent.json";

export interface DiscoveryClientOptions {
  /** Seconds a card stays cached. */
  cacheTtl?: number;
  /** Seconds a card fetch may take. */
  timeout?: number;
  enableCache?: boolean;
  /** TLS for fetching cards, e.g. this workload's SVID. */
  tls?: () => ClientTls;
}

/** Maps a SPIFFE id to the base URL of the agent that holds it. */
export type SpiffeResolver = (spiffeId: string) => string | Promise<string>;

/** Where an agent's card lives: a base URL gets the well-known path, a card URL is kept as it is. */
export function cardUrl(url: string): string {
  if (!/^https?:\/\//.test(url)) throw new DiscoveryError(`Agent URL must start with http:// or https://, got ${JSON.stringify(url)}`);
  return url.endsWith(cardPath) ? url : `${url.replace(/\/+$/, "")}${cardPath}`;
}

export class DiscoveryClient {
  readonly #cache = new Map<string, { card: AgentCard; expires: number }>();
  readonly #inFlight = new Map<string, Promise<AgentCard>>();
  readonly #ttlMs: number;
  readonly #timeoutMs: number;
  readonly #enableCache: boolean;
  readonly #tls?: () => ClientTls;

  constructor({ cacheTtl = 300, timeout = 10, enableCache = true, tls }: DiscoveryClientOptions = {}) {
    this.#ttlMs = cacheTtl * 1000;
    this.#timeoutMs = timeout * 1000;
    this.#enableCache = enableCache;
    this.#tls = tls;
  }

  /** The agent's card, from the cache unless `forceRefresh` or expired. Throws DiscoveryError or A2ATimeoutError. */
  async discoverAgent(url: string, forceRefresh = false): Promise<AgentCard> {
    const key = cardUrl(url);
    const cached = this.#cache.get(key);
    if (this.#enableCache && !forceRefresh && cached && cached.expires > Date.now()) return cached.card;
    let pending = this.#inFlight.get(key);
    if (!pending) {
      pending = this.#fetch(key).finally(() => this.#inFlight.delete(key));
      this.#inFlight.set(key, pending);
    }
    const card = await pending;
    if (this.#enableCache) this.#cache.set(key, { card, expires: Date.now() + this.#ttlMs });
    return card;
  }

  async discoverBySpiffeId(spiffeId: string, resolver?: SpiffeResolver): Promise<AgentCard> {
    if (!resolver) throw new DiscoveryError(`Cannot discover ${spiffeId}: no resolver from SPIFFE ids to URLs was given`);
    const card = await this.discoverAgent(await resolver(spiffeId));
    if (card.getSpiffeId() !== spiffeId)
      throw new DiscoveryError(`The agent found for ${spiffeId} presents ${card.getSpiffeId() ?? "no SPIFFE id"}`);
    return card;
  }

  /** Cards of every URL, fetched concurrently, in the order given. With `ignoreErrors`, failures are left out. */
  async discoverMultiple(urls: string[], ignoreErrors = true): Promise<AgentCard[]> {
    const settled = await Promise.allSettled(urls.map((url) => this.discoverAgent(url)));
    const cards: AgentCard[] = [];
    for (const outcome of settled) {
      if (outcome.status === "fulfilled") cards.push(outcome.value);
      else if (!ignoreErrors) throw outcome.reason;
    }
    return cards;
  }

  /** False also when the agent cannot be reached. */
  async verifyAgentCapability(url: string, capability: string): Promise<boolean> {
    try {
      return (await this.discoverAgent(url)).hasCapability(capability);
    } catch {
      return false;
    }
  }

  async findAgentsWithCapability(urls: string[], capability: string): Promise<AgentCard[]> {
    return (await this.discoverMultiple(urls, true)).filter((card) => card.hasCapability(capability));
  }

  clearCache(url?: string): void {
    if (url === undefined) this.#cache.clear();
    else this.#cache.delete(cardUrl(url));
  }

  getCacheStats(): { totalEntries: number; expiredEntries: number; activeEntries: number } {
    const now = Date.now();
    const expiredEntries = [...this.#cache.values()].filter((e) => e.expires <= now).length;
    return { totalEntries: this.#cache.size, expiredEntries, activeEntries: this.#cache.size - expiredEntries };
  }

  close(): void {
    this.#cache.clear();
  }

  async #fetch(url: string): Promise<AgentCard> {
    let response: Response;
    try {
      response = await fetch(url, {
        headers: { accept: "application/json" },
        signal: AbortSignal.timeout(this.#timeoutMs),
        ...(this.#tls ? { tls: this.#tls() } : {}),
      });
    } catch (error) {
      if ((error as Error).name === "TimeoutError") throw new A2ATimeoutError(`Discovery of ${url} timed out after ${this.#timeoutMs / 1000}s`, { cause: error });
      throw new DiscoveryError(`Cannot reach ${url}: ${(error as Error).message}`, { cause: error });
    }
    if (!response.ok) throw new DiscoveryError(`Discovery of ${url} failed: HTTP ${response.status}`, { data: { status: response.status } });
    try {
      return AgentCard.fromJSON(await response.text());
    } catch (error) {
      const reason = error instanceof ValueError ? error.message : String(error);
      throw new DiscoveryError(`${url} did not serve a valid agent card: ${reason}`, { cause: error });
    }
  }
}
