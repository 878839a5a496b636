import type { Module } from "./syntax/ast.ts";
import { builtins } from "./builtins/registry.ts";
import { type CompiledPolicy, Compiler } from "./plan/compiler.ts";
import { RegoError } from "./values/errors.ts";
import { type EvalLimits, type EvalOptions, overflowed, Run, type Vals } from "./eval/evaluator.ts";
import { compileBody } from "./eval/bodies.ts";
import { parseModule, parseQuery } from "./syntax/parser.ts";
import { answer } from "./eval/rules.ts";
import { fromJS, RObject, toJS, type Value } from "./values/values.ts";

export { RegoError } from "./values/errors.ts";

export interface RegoEngineOptions extends Partial<EvalLimits> {
  /** Built-in errors fail the evaluation instead of making the expression undefined (OPA's strict mode). */
  strictBuiltinErrors?: boolean;
  /** Deepest nesting accepted in input and data documents. */
  maxDocumentDepth?: number;
  /**
   * How often a rule is read through its closures before it is compiled to generated JavaScript (default
   * 32): rules in use run faster, rules read now and then keep the closures' smaller footprint and skip
   * the generator's cost (about 0.1 ms a rule). 0 compiles every rule on its first evaluation.
   */
  compileAfter?: number;
}

export interface PolicyModule {
  id: string;
  source: string;
}

export interface QueryOptions {
  input?: unknown;
  strictBuiltinErrors?: boolean;
}

/** One consistent, compiled policy set: replaced as a whole, never changed in place. */
interface PolicySet {
  modules: Map<string, { source: string; parsed: Module }>;
  policy: CompiledPolicy;
  data: Value;
  version: string;
}

const DEFAULT_LIMITS: EvalLimits = { maxSteps: 1_000_000, maxDepth: 200 };
const MAX_CACHED_PATHS = 1000;

/**
 * An embedded Rego (v1) engine: compile a module set and a data document once, then evaluate
 * decisions against it many times. Every change (load, putModule, deleteModule, setData) compiles a
 * complete new set and swaps it in only when it is valid, so a bad module never replaces a good one.
 */
export class RegoEngine {
  private active: PolicySet;
  private readonly limits: EvalLimits;
  private readonly strict: boolean;
  private readonly evalOptions: EvalOptions;
  private readonly maxDocumentDepth: number;
  /** Document paths as asked (`platform/authz`), compiled once: callers ask for the same few again and again. */
  private readonly paths = new Map<string, string[]>();

  constructor(options: RegoEngineOptions = {}) {
    this.limits = { maxSteps: options.maxSteps ?? DEFAULT_LIMITS.maxSteps, maxDepth: options.maxDepth ?? DEFAULT_LIMITS.maxDepth };
    this.strict = options.strictBuiltinErrors ?? false;
    this.evalOptions = { ...this.limits, strictBuiltinErrors: this.strict, compileAfter: options.compileAfter ?? 32 };
    this.maxDocumentDepth = options.maxDocumentDepth ?? 1000;
    this.active = build(new Map(), new RObject());
  }

  /** Replaces all modules (and the data, when given). Throws RegoError; the previous set stays active. */
  load(modules: PolicyModule[], data?: unknown): void {
    const parsed = new Map<string, { source: string; parsed: Module }>();
    for (const m of modules) {
      if (parsed.has(m.id)) throw new RegoError("rego_compile_error", `module ${m.id} is given twice`);
      parsed.set(m.id, { source: m.source, parsed: parseModule(m.source, m.id) });
    }
    this.active = build(parsed, data === undefined ? this.active.data : this.toData(data));
  }

  /**
   * Loads like `load`, then runs `accept` against the new set; when `accept` throws, the previous set is
   * active again. One compilation for a set that must pass a check before it may serve.
   */
  loadChecked(modules: PolicyModule[], data: unknown, accept: () => void): void {
    const previous = this.active;
    this.load(modules, data);
    try {
      accept();
    } catch (error) {
      this.active = previous;
      throw error;
    }
  }

  /** Adds or replaces one module, atomically. */
  putModule(id: string, source: string): void {
    const modules = new Map(this.active.modules);
    modules.set(id, { source, parsed: parseModule(source, id) });
    this.active = build(modules, this.active.data);
  }

  /** Removes one module; false when there is none with that id. */
  deleteModule(id: string): boolean {
    if (!this.active.modules.has(id)) return false;
    const modules = new Map(this.active.modules);
    modules.delete(id);
    this.active = build(modules, this.active.data);
    return true;
  }

  setData(data: unknown): void {
    this.active = build(this.active.modules, this.toData(data));
  }

  /** The base data document (what `setData` and `load` gave), as a Rego value. */
  data(): RObject {
    return this.active.data as RObject;
  }

  /** The packages the loaded modules declare (`platform.authz`), each once. */
  packages(): string[] {
    return [...new Set([...this.active.modules.values()].map((m) => m.parsed.pkg.join(".")))];
  }

  modules(): PolicyModule[] {
    return [...this.active.modules.entries()].map(([id, m]) => ({ id, source: m.source }));
  }

  /** Changes whenever the module set or the data changes (a content hash). */
  get version(): string {
    return this.active.version;
  }

  /**
   * The document at `path` (`platform/authz` or `platform/authz/allow`), in the shape of OPA's
   * `POST /v1/data/<path>` answer: `result` is absent when the document is undefined.
   */
  evaluate(path: string, input?: unknown, options: { strictBuiltinErrors?: boolean } = {}): { result?: unknown } {
    let keys = this.paths.get(path);
    if (!keys) {
      keys = path.split("/").filter((p) => p !== "");
      if (this.paths.size >= MAX_CACHED_PATHS) this.paths.clear();
      this.paths.set(path, keys);
    }
    const set = this.active;
    const evalOptions = options.strictBuiltinErrors === undefined ? this.evalOptions : { ...this.evalOptions, strictBuiltinErrors: options.strictBuiltinErrors };
    const result = answer(new Run(set.policy.root, set.data, this.toInput(input), evalOptions), keys);
    return result === undefined ? {} : { result };
  }

  /** All solutions of a Rego query, each as its variable bindings (OPA's result set). */
  query(query: string, options: QueryOptions = {}): Record<string, unknown>[] {
    return this.queryValues(query, options).map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, toJS(v)])));
  }

  /** Like query, with the bindings as Rego values (exact numbers, sets kept as sets). */
  queryValues(query: string, options: QueryOptions = {}): Record<string, Value>[] {
    const set = this.active;
    const { body: ordered, slots, outputs } = new Compiler(builtins, set.policy.root).compileQuery(parseQuery(query));
    const body = compileBody(ordered, set.policy.root);
    const run = new Run(set.policy.root, set.data, this.toInput(options.input), {
      ...this.evalOptions,
      strictBuiltinErrors: options.strictBuiltinErrors ?? this.strict,
    });
    const vals: Vals = new Array(slots);
    const results: Record<string, Value>[] = [];
    try {
      body.goal(run, vals, () => {
        const r: Record<string, Value> = {};
        for (const [name, slot] of outputs) {
          const v = vals[slot];
          if (v !== undefined) r[name] = v;
        }
        results.push(r);
        return false;
      });
    } catch (e) {
      throw overflowed(e);
    }
    return results;
  }

  private toInput(input: unknown): Value | undefined {
    return input === undefined ? undefined : fromJS(input, { maxDepth: this.maxDocumentDepth });
  }

  private toData(data: unknown): Value {
    const value = fromJS(data, { maxDepth: this.maxDocumentDepth });
    if (!(value instanceof RObject)) throw new RegoError("invalid_input", "data must be an object");
    return value;
  }
}

function build(modules: Map<string, { source: string; parsed: Module }>, data: Value): PolicySet {
  const policy = new Compiler(builtins).compile([...modules.values()].map((m) => m.parsed));
  const hasher = new Bun.CryptoHasher("sha256");
  for (const id of [...modules.keys()].sort()) hasher.update(`${id}\0${modules.get(id)!.source}\0`);
  hasher.update(JSON.stringify(toJS(data), (_, v) => (typeof v === "bigint" ? v.toString() : v)));
  return { modules, policy, data, version: hasher.digest("hex").slice(0, 16) };
}
