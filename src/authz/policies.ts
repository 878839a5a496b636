/**
 * The policy set: read from the policy folder, checked before it is trusted. Start-up refuses a set whose
 * package is not the configured `policy_path`, and outside development a set that allows everything. The
 * same guard applies to modules changed later through the OPA-compatible API.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { RegoEngine, type PolicyModule } from "../rego/engine.ts";
import type { RObject } from "../rego/values/values.ts";
import { builtinPolicies } from "./builtin-policies.ts";
import { AuthzConfigError, PolicyEvaluationError } from "./errors.ts";
import type { PolicyInput } from "./model.ts";
import type { DecisionProvider } from "./provider.ts";

/** `*.rego` (tests aside) and `data.json` from one folder; subfolders such as `dev/` are not read. */
export function readPolicyDir(dir: string): { modules: PolicyModule[]; data: unknown } {
  let names: string[];
  try {
    names = readdirSync(dir).sort();
  } catch (error) {
    throw new PolicyEvaluationError(`cannot read the policy folder ${dir}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  const modules = names
    .filter((name) => name.endsWith(".rego") && !name.endsWith("_test.rego"))
    .map((name) => ({ id: name, source: readFileSync(join(dir, name), "utf8") }));
  let data: unknown = {};
  if (names.includes("data.json")) {
    try {
      data = JSON.parse(readFileSync(join(dir, "data.json"), "utf8"));
    } catch (error) {
      throw new PolicyEvaluationError(`${join(dir, "data.json")}: ${(error as Error).message}`);
    }
  }
  return { modules, data };
}

/** A request no sound policy allows: strangers from two unknown trust domains, an action nobody has. */
export const allowAllProbe: PolicyInput = Object.freeze({
  caller_spiffe_id: "spiffe://allow-all-probe.invalid/stranger",
  callee_spiffe_id: "spiffe://other-probe.invalid/nobody",
  action: "probe:no-such-action",
  context: Object.freeze({ data_classification: "restricted" }),
});

const dotted = (policyPath: string) => policyPath.replaceAll("/", ".");

/** Throws unless a loaded module declares the package `policyPath` names (`platform/authz` -> `platform.authz`). */
function assertPackageLoaded(engine: RegoEngine, policyPath: string): void {
  const packages = engine.packages();
  if (!packages.includes(dotted(policyPath)))
    throw new PolicyEvaluationError(
      `policy package ${dotted(policyPath)} is not loaded (authorization.policy_path is ${policyPath}); loaded packages: ${packages.join(", ") || "none"}`,
    );
}

const allows = (engine: RegoEngine, policyPath: string) =>
  (engine.evaluate(policyPath, allowAllProbe).result as { allow?: unknown } | undefined)?.allow === true;

/** Throws outside development when the engine's current set allows everything, naming the module that does. */
export function refuseAllowAll(engine: RegoEngine, policyPath: string, development: boolean): void {
  if (development || !allows(engine, policyPath)) return;
  const culprits = engine.modules().filter((module) => {
    const alone = new RegoEngine();
    try {
      alone.load([module], {});
      return allows(alone, policyPath);
    } catch {
      return false;
    }
  });
  const named = culprits.length ? culprits.map((m) => m.id).join(", ") : "the loaded policy set";
  throw new AuthzConfigError(
    `refusing to start: ${named} allows every request (an allow-all policy); it is for environment: development only`,
  );
}

/**
 * Loads the folder (or, with none given, the built-in policies) into the engine and runs the start-up checks;
 * a bad module leaves the engine unchanged.
 */
export function loadPolicies(engine: RegoEngine, { dir, policyPath, development }: { dir: string; policyPath: string; development: boolean }): void {
  const { modules, data } = dir === "" ? builtinPolicies : readPolicyDir(dir);
  engine.loadChecked(modules, data, () => {
    assertPackageLoaded(engine, policyPath);
    refuseAllowAll(engine, policyPath, development);
  });
}

/** Start-up check of a remote engine: its package must answer, and not allow everything outside development. */
export async function checkRemote(provider: DecisionProvider, { policyPath, development }: { policyPath: string; development: boolean }) {
  const { result } = await provider.evaluate(allowAllProbe);
  if (result === undefined) throw new PolicyEvaluationError(`policy package ${dotted(policyPath)} is not loaded in the policy engine`);
  if (!development && (result as { allow?: unknown } | null)?.allow === true)
    throw new AuthzConfigError(`refusing to start: the policy engine's ${dotted(policyPath)} allows every request (an allow-all policy); it is for environment: development only`);
}

/**
 * The embedded engine's modules as the OPA-compatible API changes them: one module at a time, atomically, and
 * never into an allow-all set outside development (the change is undone and refused).
 */
export class PolicyStore {
  constructor(
    readonly engine: RegoEngine,
    private readonly guard: { policyPath: string; development: boolean },
  ) {}

  put(id: string, source: string): void {
    const before = this.engine.modules().find((m) => m.id === id);
    this.engine.putModule(id, source);
    try {
      refuseAllowAll(this.engine, this.guard.policyPath, this.guard.development);
    } catch (error) {
      if (before) this.engine.putModule(id, before.source);
      else this.engine.deleteModule(id);
      throw error;
    }
  }

  remove(id: string): boolean {
    return this.engine.deleteModule(id);
  }

  /** Replaces the base data document with `change` of it, refused (and undone) if the set would allow everything. */
  writeData(change: (doc: RObject) => RObject): void {
    const before = this.engine.data();
    this.engine.setData(change(before));
    try {
      refuseAllowAll(this.engine, this.guard.policyPath, this.guard.development);
    } catch (error) {
      this.engine.setData(before);
      throw error;
    }
  }

  /** Replaces modules and data together (a bundle's activation): one compilation, all or nothing. */
  activate(modules: PolicyModule[], data: RObject): void {
    this.engine.loadChecked(modules, data, () => refuseAllowAll(this.engine, this.guard.policyPath, this.guard.development));
  }

  list(): PolicyModule[] {
    return this.engine.modules();
  }

  get(id: string): PolicyModule | undefined {
    return this.engine.modules().find((m) => m.id === id);
  }
}
