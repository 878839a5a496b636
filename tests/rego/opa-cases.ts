/**
 * OPA's conformance cases (`test/cases` YAML: note, query, modules, data, input or input_term, want_result,
 * want_error_code, want_error, strict_error, sort_bindings, ignore_generated_vars) from any directory, run
 * through the embedded engine and through a real `opa` binary, each judged as OPA's own runner
 * (`testRun` in OPA's topdown tests) judges it. The conformance test and `scripts/conformance.ts` share it.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { parse } from "yaml";
import { RegoEngine, RegoError } from "../../src/rego/engine.ts";
import { compare, fromJS, keyOf, RObject, RSet, toJSON, type Value } from "../../src/rego/values/values.ts";

export interface Case {
  /** Where the case comes from: `<file relative to the corpus>#<index>`. */
  id: string;
  note: string;
  query: string;
  modules?: string[];
  data?: unknown;
  input?: unknown;
  input_term?: string;
  want_result?: Record<string, unknown>[];
  want_error_code?: string;
  want_error?: string;
  strict_error?: boolean;
  sort_bindings?: boolean;
  ignore_generated_vars?: boolean;
}

/** What running a case gave: its result set (variable bindings per solution), or an error. */
export type Outcome = { rows: Record<string, Value>[] } | { error: { code: string; message: string } };

/** Every case under `dir` (YAML files, recursively), in file order. */
export function loadCases(dir: string): Case[] {
  const files = (function walk(d: string): string[] {
    return readdirSync(d, { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? walk(join(d, e.name)) : /\.ya?ml$/.test(e.name) ? [join(d, e.name)] : [],
    );
  })(dir).sort();
  return files.flatMap((file) => {
    // Integers come back as bigint so values beyond a double's exact range stay exact.
    const doc = parse(readFileSync(file, "utf8"), { intAsBigInt: true }) as { cases?: Omit<Case, "id">[] } | null;
    return (doc?.cases ?? []).map((c, i) => ({ ...c, id: `${relative(dir, file)}#${i}` }));
  });
}

/** The case through the embedded engine; `compileAfter` 0 runs every rule as generated code. */
export function runEngine(c: Case, compileAfter?: number): Outcome {
  try {
    const engine = new RegoEngine({ strictBuiltinErrors: c.strict_error ?? false, compileAfter });
    engine.load(
      (c.modules ?? []).map((source, i) => ({ id: `test-${i}.rego`, source })),
      c.data ?? {},
    );
    const input = c.input_term !== undefined ? termValue(c.input_term) : c.input;
    return { rows: engine.queryValues(c.query, { input }) };
  } catch (e) {
    if (e instanceof RegoError) return { error: { code: e.code, message: e.message } };
    return { error: { code: "internal_error", message: e instanceof Error ? e.message : String(e) } };
  }
}

/** A Rego term's value, exact (big numbers, sets): OPA's own JSON output is read this way too. */
const termValue = (text: string): Value => new RegoEngine().queryValues(`value = ${text}`)[0]!.value!;

/**
 * The case through real OPA: `opa eval` with the case's modules, data and input in a scratch folder. An
 * `input_term` that is not JSON (a set, say) reaches OPA as `with input as` on a one-line query.
 */
export async function runOpa(opa: string, c: Case): Promise<Outcome> {
  const dir = mkdtempSync(join(tmpdir(), "opa-case-"));
  try {
    const policy = join(dir, "policy");
    const args = ["eval", "--format", "json", "--data", policy];
    mkdirSync(policy);
    (c.modules ?? []).forEach((source, i) => writeFileSync(join(policy, `test-${i}.rego`), source));
    writeFileSync(join(policy, "data.json"), exactJSON(c.data ?? {}));
    let query = c.query;
    if (c.input_term !== undefined) {
      if (isJSON(c.input_term)) {
        writeFileSync(join(dir, "input.json"), c.input_term);
        args.push("--input", join(dir, "input.json"));
      } else if (!/[;\n]/.test(query.trim())) query = `${query} with input as ${c.input_term}`;
      else return { error: { code: "runner_error", message: "a multi-expression query with a non-JSON input_term" } };
    } else if (c.input !== undefined) {
      writeFileSync(join(dir, "input.json"), exactJSON(c.input));
      args.push("--input", join(dir, "input.json"));
    }
    if (c.strict_error) args.push("--strict-builtin-errors");
    args.push(query);
    const child = Bun.spawn([opa, ...args], { stdout: "pipe", stderr: "pipe", stdin: "ignore" });
    const timer = setTimeout(() => child.kill(), 30_000);
    const [out, err] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
    clearTimeout(timer);
    return opaOutcome(out, err);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function isJSON(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** JSON text with bigints written as the exact integers they are. */
function exactJSON(value: unknown): string {
  return toJSON(fromJS(value));
}

interface EvalOutput {
  result?: { bindings?: Record<string, unknown> }[];
  errors?: { code?: string; message?: string; location?: { file: string; row: number } }[];
}

/** `opa eval --format json` output as an outcome; bindings are re-read exactly from OPA's JSON text. */
function opaOutcome(stdout: string, stderr: string): Outcome {
  let out: EvalOutput;
  try {
    out = JSON.parse(stdout) as EvalOutput;
  } catch {
    return { error: { code: "runner_error", message: `opa eval printed no JSON: ${(stderr || stdout).slice(0, 300)}` } };
  }
  if (out.errors?.length) {
    const e = out.errors[0]!;
    // The text OPA's error values print (its own runner matches want_error against that).
    const text = (x: NonNullable<EvalOutput["errors"]>[number]) => `${x.location ? `${x.location.file}:${x.location.row}: ` : ""}${x.code}: ${x.message}`;
    return { error: { code: e.code ?? "unknown", message: out.errors.map(text).join("\n") } };
  }
  const exact = termValue(stdout);
  const results = exact instanceof RObject ? exact.get("result") : undefined;
  if (!Array.isArray(results)) return { rows: [] };
  return {
    rows: results.map((r) => {
      const bindings = r instanceof RObject ? r.get("bindings") : undefined;
      return bindings instanceof RObject ? Object.fromEntries(bindings.entries().map(([k, v]) => [String(k), v])) : {};
    }),
  };
}

/** Whether an outcome is what the case wants: undefined when it is, else why not (OPA's runner's checks). */
export function judge(c: Case, outcome: Outcome): string | undefined {
  if (c.want_error_code !== undefined || c.want_error !== undefined) {
    if (!("error" in outcome)) return `wanted an error (${c.want_error_code ?? c.want_error}), got ${resultText(outcome.rows, c)}`;
    if (c.want_error_code !== undefined && outcome.error.code !== c.want_error_code)
      return `wanted error code ${c.want_error_code}, got ${outcome.error.code}: ${outcome.error.message}`;
    if (c.want_error !== undefined && !outcome.error.message.includes(c.want_error))
      return `wanted an error containing ${JSON.stringify(c.want_error)}, got ${JSON.stringify(outcome.error.message)}`;
    return undefined;
  }
  if ("error" in outcome) return `unexpected error ${outcome.error.code}: ${outcome.error.message}`;
  if (c.want_result === undefined) return "the case wants nothing (no want_result, want_error_code or want_error)";
  const got = resultSet(outcome.rows, c);
  const want = resultSet(
    c.want_result.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, fromJS(v)]))),
    { ...c, ignore_generated_vars: false },
  );
  if (got.length === want.length && got.every((g, i) => g === want[i])) return undefined;
  return `wanted ${resultText(c.want_result.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, fromJS(v)]))), c)}, got ${resultText(outcome.rows, c)}`;
}

/** The result set as OPA's runner compares it: each row's values after JSON conversion, as a set. */
function resultSet(rows: Record<string, Value>[], c: Pick<Case, "sort_bindings" | "ignore_generated_vars">): string[] {
  const keys = rows.map((r) =>
    keyOf(
      RObject.of(
        Object.entries(r)
          .filter(([k]) => !(c.ignore_generated_vars && k.startsWith("__localq")))
          .map(([k, v]) => [k, asJSON(v, c.sort_bindings ?? false)]),
      ),
    ),
  );
  return [...new Set(keys)].sort();
}

const resultText = (rows: Record<string, Value>[], c: Case) => {
  const text = `[${rows.map((r) => toJSON(RObject.of(Object.entries(r).map(([k, v]) => [k, asJSON(v, c.sort_bindings ?? false)])))).join(", ")}]`;
  return text.length > 400 ? `${text.slice(0, 400)}...` : text;
};

/** The value as OPA's JSON output shows it: sets as sorted arrays, non-string keys as their JSON text. */
function asJSON(v: Value, sortArrays: boolean): Value {
  if (v instanceof RSet) return v.values().map((x) => asJSON(x, false));
  if (Array.isArray(v)) {
    const items = v.map((x) => asJSON(x, false));
    return sortArrays ? items.sort(compare) : items;
  }
  if (v instanceof RObject) return RObject.of(v.entries().map(([k, x]) => [typeof k === "string" ? k : toJSON(k), asJSON(x, false)]));
  return v;
}

/** Runs `task` over `items` with at most `limit` at once, keeping the order of the results. */
export async function pooled<T, R>(items: T[], limit: number, task: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await task(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
