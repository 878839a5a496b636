/**
 * OPA bundles feeding the embedded engine: a .tar.gz with `.manifest` (revision, roots), `data.json` files
 * (each at the path of its folder) and `.rego` modules, read from a file or an HTTP(S) URL. A URL is polled
 * with its ETag (a 304 changes nothing). A bundle is activated whole or not at all: its modules and its
 * roots' data replace the previous revision's in one compilation, so a bad download never half-applies.
 */
import { readFileSync } from "node:fs";
import type { Logger } from "../log.ts";
import { RegoError, type PolicyModule } from "../rego/engine.ts";
import { parseJSON } from "../rego/values/json.ts";
import { RObject, type Value } from "../rego/values/values.ts";
import { put, read, remove } from "./documents.ts";
import type { PolicyStore } from "./policies.ts";

export interface BundleSource {
  name: string;
  /** A file path, or an http(s):// URL. */
  source: string;
  /** How often a URL is polled for a new revision. */
  pollingSeconds: number;
}

export interface BundleContents {
  revision: string;
  roots: string[][];
  modules: PolicyModule[];
  data: { path: string[]; value: Value }[];
}

interface BundleState {
  name: string;
  active_revision?: string;
  last_successful_activation?: string;
  last_successful_download?: string;
  last_request?: string;
  code?: string;
  message?: string;
}

/** The files of a (ustar) tar archive, by path. */
export function untar(archive: Uint8Array): Map<string, Uint8Array> {
  const files = new Map<string, Uint8Array>();
  const text = (from: number, length: number) => new TextDecoder().decode(archive.subarray(from, from + length)).replace(/\0.*$/s, "");
  for (let at = 0; at + 512 <= archive.length; ) {
    const name = text(at, 100);
    if (!name) break;
    const size = parseInt(text(at + 124, 12).trim() || "0", 8);
    const type = text(at + 156, 1);
    const prefix = text(at + 257, 6).startsWith("ustar") ? text(at + 345, 155) : "";
    const path = (prefix ? `${prefix}/${name}` : name).replace(/^\.?\//, "");
    if (type === "0" || type === "" || type === "\0") files.set(path, archive.slice(at + 512, at + 512 + size));
    at += 512 + Math.ceil(size / 512) * 512;
  }
  return files;
}

const bundleError = (message: string) => new RegoError("invalid_input", message);

/** A bundle's archive (.tar.gz) read into its parts; throws a RegoError naming what is wrong. */
export function readBundle(archive: Uint8Array): BundleContents {
  let files: Map<string, Uint8Array>;
  try {
    files = untar(Bun.gunzipSync(archive as Uint8Array<ArrayBuffer>));
  } catch (error) {
    throw bundleError(`bundle is not a gzipped tar archive: ${(error as Error).message}`);
  }
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  const manifestBytes = files.get(".manifest");
  const manifest = manifestBytes ? parseJSON(decode(manifestBytes)) : new RObject();
  if (!(manifest instanceof RObject)) throw bundleError(".manifest must be a JSON object");
  const rootsValue = manifest.get("roots") ?? [""];
  if (!Array.isArray(rootsValue) || rootsValue.some((r) => typeof r !== "string")) throw bundleError(".manifest roots must be an array of strings");
  const roots = (rootsValue as string[]).map((r) => r.split("/").filter(Boolean));
  const revision = manifest.get("revision") ?? "";
  if (typeof revision !== "string") throw bundleError(".manifest revision must be a string");
  const within = (path: string[]) => roots.some((root) => root.every((k, i) => path[i] === k));
  const modules: PolicyModule[] = [];
  const data: BundleContents["data"] = [];
  for (const [file, bytes] of [...files].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const dirs = file.split("/").slice(0, -1);
    if (file.endsWith(".rego")) modules.push({ id: file, source: decode(bytes) });
    else if (file === "data.json" || file.endsWith("/data.json")) {
      const value = parseJSON(decode(bytes));
      if (!dirs.length && value instanceof RObject) {
        // A root data.json spreads over its keys, each of which must lie within the roots.
        for (const [k, v] of value.entries()) {
          if (!within([String(k)]) && !roots.some((r) => r[0] === k)) throw bundleError(`data path /${String(k)} is outside the bundle's roots`);
          data.push({ path: [String(k)], value: v });
        }
      } else {
        if (!within(dirs)) throw bundleError(`data path /${dirs.join("/")} is outside the bundle's roots`);
        data.push({ path: dirs, value });
      }
    }
  }
  return { revision, roots, modules, data };
}

/** The bundles an engine is fed from, each activated when it loads and kept up to date. */
export class Bundles {
  private readonly states = new Map<string, BundleState>();
  private readonly etags = new Map<string, string>();
  private readonly timers: Timer[] = [];

  constructor(
    private readonly store: PolicyStore,
    private readonly sources: BundleSource[],
    private readonly log: Logger,
  ) {
    for (const s of sources) this.states.set(s.name, { name: s.name });
  }

  /** Loads every bundle once (a failure is logged and kept in its status), then polls the URLs. */
  async start(): Promise<void> {
    for (const s of this.sources) {
      await this.refresh(s);
      if (/^https?:\/\//.test(s.source)) this.timers.push(setInterval(() => void this.refresh(s), s.pollingSeconds * 1000));
    }
  }

  stop(): void {
    for (const t of this.timers) clearInterval(t);
    this.timers.length = 0;
  }

  /** Whether every bundle has an active revision. */
  ready(): boolean {
    return [...this.states.values()].every((s) => s.last_successful_activation !== undefined);
  }

  status(): Record<string, BundleState> {
    return Object.fromEntries([...this.states].map(([k, v]) => [k, { ...v }]));
  }

  config(): Record<string, { resource: string }> {
    return Object.fromEntries(this.sources.map((s) => [s.name, { resource: s.source }]));
  }

  provenance(): Record<string, { revision: string }> {
    return Object.fromEntries([...this.states].filter(([, s]) => s.active_revision !== undefined).map(([k, s]) => [k, { revision: s.active_revision! }]));
  }

  /** Fetches one bundle (unless unchanged) and activates it; returns whether a new revision became active. */
  async refresh(source: BundleSource): Promise<boolean> {
    const state = this.states.get(source.name)!;
    state.last_request = new Date().toISOString();
    try {
      const archive = await this.download(source);
      if (!archive) return false;
      state.last_successful_download = new Date().toISOString();
      const contents = readBundle(archive);
      this.activate(source.name, contents);
      state.active_revision = contents.revision;
      state.last_successful_activation = new Date().toISOString();
      delete state.code;
      delete state.message;
      this.log.info("bundle activated", { bundle: source.name, revision: contents.revision });
      return true;
    } catch (error) {
      state.code = error instanceof RegoError ? "bundle_error" : "download_error";
      state.message = error instanceof Error ? error.message : String(error);
      this.log.warn("bundle not activated", { bundle: source.name, error: state.message });
      return false;
    }
  }

  private async download(source: BundleSource): Promise<Uint8Array | undefined> {
    if (!/^https?:\/\//.test(source.source)) return readFileSync(source.source);
    const etag = this.etags.get(source.name);
    const response = await fetch(source.source, { headers: etag ? { "if-none-match": etag } : {}, redirect: "error" });
    if (response.status === 304) return undefined;
    if (!response.ok) throw new Error(`GET ${source.source} answered ${response.status}`);
    const body = new Uint8Array(await response.arrayBuffer());
    const next = response.headers.get("etag");
    if (next) this.etags.set(source.name, next);
    return body;
  }

  /** The bundle's modules replace its previous ones, its roots' data replaces what was under them: in one swap. */
  private activate(name: string, contents: BundleContents): void {
    const prefix = `${name}/`;
    const modules = [
      ...this.store.list().filter((m) => !m.id.startsWith(prefix)),
      ...contents.modules.map((m) => ({ id: prefix + m.id, source: m.source })),
    ];
    let data = this.store.engine.data();
    for (const root of contents.roots) if (read(data, root) !== undefined) data = root.length ? (remove(data, root) as RObject) : new RObject();
    for (const { path, value } of contents.data) data = put(data, path, value);
    this.store.activate(modules, data);
  }
}
