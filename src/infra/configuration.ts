/**
 * A configuration read the way tofu reads it: every .tf file of a folder is one module; variables take their
 * values from terraform.tfvars and *.auto.tfvars, else their defaults; locals, count and for_each are evaluated
 * where they can be; local modules (`source = "./..."`) are followed with their inputs. The result is every
 * resource instance with its evaluated attributes, its address, file and line.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import type { Parser } from "web-tree-sitter";
import { evaluate, isUnknown, Unknown, type Scope, type Value } from "./evaluate.ts";
import { hclParser, parseWith, type Block, type Body, type Expr, type HclFile } from "./hcl.ts";
import type { ModuleCall, RequiredProvider } from "./views.ts";

export interface ResourceInstance {
  mode: "managed" | "data";
  type: string;
  name: string;
  /** The address without an instance key, with its module path: `module.logs.aws_s3_bucket.this`. */
  address: string;
  /** The address with the instance key, when there is one: `aws_s3_bucket.this[0]`. */
  instance: string;
  /** Relative to the folder the configuration was loaded from. */
  file: string;
  line: number;
  endLine: number;
  /** Attributes and nested blocks (each block type a list of objects), evaluated. */
  conf: Record<string, Value>;
  /** The line of each top-level attribute or block, for findings. */
  lines: Record<string, number>;
  /** Other resources this one refers to, as addresses in its own module (`aws_s3_bucket.logs`). */
  references: Set<string>;
  /** `module.logs`, or "" at the root. */
  modulePath: string;
}

export interface Variable {
  name: string;
  file: string;
  line: number;
  hasDescription: boolean;
  hasType: boolean;
  hasDefault: boolean;
  sensitive: boolean;
}

export interface LoadedModule {
  path: string;
  dir: string;
  files: HclFile[];
  variables: Variable[];
  outputs: { name: string; file: string; line: number; hasDescription: boolean; sensitive: boolean }[];
  locals: string[];
  moduleCalls: ModuleCall[];
  providers: { name: string; file: string; line: number }[];
  requiredProviders: RequiredProvider[];
  requiredVersion?: string;
  backend?: string;
}

export interface Configuration {
  /** The folder it was loaded from; files are named relative to it. */
  dir: string;
  root: LoadedModule;
  modules: LoadedModule[];
  resources: ResourceInstance[];
}

const configFile = /\.(tf|tofu)$/;

/** Loads the configuration in `dir`. Bad HCL does not throw: each file's syntax errors are in its `errors`. */
export async function loadConfiguration(dir: string): Promise<Configuration> {
  const parser = await hclParser();
  const config: Configuration = { dir, root: undefined as never, modules: [], resources: [] };
  config.root = loadModule(parser, config, dir, "", rootInputs(parser, dir), new Set());
  return config;
}

/** The variable values of the root module: terraform.tfvars, then *.auto.tfvars in name order. */
function rootInputs(parser: Parser, dir: string): Map<string, Value> {
  const values = new Map<string, Value>();
  const files = existsSync(dir) ? readdirSync(dir).filter((f) => f === "terraform.tfvars" || f.endsWith(".auto.tfvars")).sort((a, b) => (a === "terraform.tfvars" ? -1 : b === "terraform.tfvars" ? 1 : a.localeCompare(b))) : [];
  const empty: Scope = { variable: (n) => new Unknown("variable", n), local: (n) => new Unknown("other", n), module: (n) => new Unknown("other", n) };
  for (const file of files) {
    const parsed = parseWith(parser, file, readFileSync(join(dir, file), "utf8"));
    for (const [name, attribute] of parsed.body.attributes) values.set(name, evaluate(attribute.expr, empty));
  }
  return values;
}

function loadModule(parser: Parser, config: Configuration, dir: string, modulePath: string, inputs: Map<string, Value>, visiting: Set<string>): LoadedModule {
  const files = readdirSync(dir)
    .filter((f) => configFile.test(f))
    .sort()
    .map((f) => parseWith(parser, relative(config.dir, join(dir, f)) || f, readFileSync(join(dir, f), "utf8")));
  const module: LoadedModule = { path: modulePath, dir, files, variables: [], outputs: [], locals: [], moduleCalls: [], providers: [], requiredProviders: [] };
  config.modules.push(module);

  const variableBlocks = new Map<string, Block>();
  const localExprs = new Map<string, Expr>();
  const outputs = new Map<string, Expr>();
  const moduleBlocks: { block: Block; file: string }[] = [];
  const resourceBlocks: { block: Block; file: string; mode: "managed" | "data" }[] = [];

  for (const file of files) {
    for (const block of file.body.blocks) {
      switch (block.type) {
        case "variable": {
          const name = block.labels[0] ?? "";
          variableBlocks.set(name, block);
          const attrs = block.body.attributes;
          module.variables.push({
            name,
            file: file.path,
            line: block.line,
            hasDescription: attrs.has("description"),
            hasType: attrs.has("type"),
            hasDefault: attrs.has("default"),
            sensitive: literal(attrs.get("sensitive")?.expr) === true,
          });
          break;
        }
        case "locals":
          for (const [name, attribute] of block.body.attributes) {
            localExprs.set(name, attribute.expr);
            module.locals.push(name);
          }
          break;
        case "output":
          outputs.set(block.labels[0] ?? "", block.body.attributes.get("value")?.expr ?? { kind: "literal", value: null, line: block.line, text: "null" });
          module.outputs.push({
            name: block.labels[0] ?? "",
            file: file.path,
            line: block.line,
            hasDescription: block.body.attributes.has("description"),
            sensitive: literal(block.body.attributes.get("sensitive")?.expr) === true,
          });
          break;
        case "module":
          moduleBlocks.push({ block, file: file.path });
          break;
        case "resource":
          resourceBlocks.push({ block, file: file.path, mode: "managed" });
          break;
        case "data":
          resourceBlocks.push({ block, file: file.path, mode: "data" });
          break;
        case "provider":
          module.providers.push({ name: block.labels[0] ?? "", file: file.path, line: block.line });
          break;
        case "terraform":
          readTerraformBlock(block, file.path, module);
          break;
      }
    }
  }

  // Locals and module outputs are evaluated on first use; a cycle is unknown rather than endless.
  const localValues = new Map<string, Value>();
  const evaluating = new Set<string>();
  const moduleOutputs = new Map<string, Value>();
  const scope: Scope = {
    variable(name) {
      if (inputs.has(name)) return inputs.get(name)!;
      const fallback = variableBlocks.get(name)?.body.attributes.get("default")?.expr;
      return fallback ? evaluate(fallback, scope) : new Unknown("variable", `var.${name}`);
    },
    local(name) {
      if (localValues.has(name)) return localValues.get(name)!;
      const expr = localExprs.get(name);
      if (!expr || evaluating.has(name)) return new Unknown("other", `local.${name}`);
      evaluating.add(name);
      const value = evaluate(expr, scope);
      evaluating.delete(name);
      localValues.set(name, value);
      return value;
    },
    module: (name) => moduleOutputs.get(name) ?? new Unknown("reference", `module.${name}`),
  };

  for (const { block, file } of moduleBlocks) {
    const name = block.labels[0] ?? "";
    const source = literal(block.body.attributes.get("source")?.expr);
    const local = typeof source === "string" && (source.startsWith("./") || source.startsWith("../"));
    const version = literal(block.body.attributes.get("version")?.expr);
    module.moduleCalls.push({ name, source: String(source ?? ""), ...(typeof version === "string" ? { version } : {}), file, line: block.line, local });
    if (!local) continue;
    const childDir = resolve(dir, source as string);
    if (!existsSync(childDir) || !statSync(childDir).isDirectory() || visiting.has(childDir)) continue;
    const childInputs = new Map<string, Value>();
    for (const [input, attribute] of block.body.attributes)
      if (!["source", "version", "count", "for_each", "providers", "depends_on"].includes(input)) childInputs.set(input, evaluate(attribute.expr, scope));
    const child = loadModule(parser, config, childDir, `${modulePath ? `${modulePath}.` : ""}module.${name}`, childInputs, new Set([...visiting, childDir]));
    moduleOutputs.set(name, Object.fromEntries(child.outputs.map((o) => [o.name, new Unknown("reference", `module.${name}.${o.name}`)])));
  }
  for (const { block, file, mode } of resourceBlocks) config.resources.push(...instances(block, file, mode, modulePath, scope));
  return module;
}

function readTerraformBlock(block: Block, file: string, module: LoadedModule): void {
  const required = literal(block.body.attributes.get("required_version")?.expr);
  if (typeof required === "string") module.requiredVersion = required;
  for (const inner of block.body.blocks) {
    if (inner.type === "backend") module.backend = inner.labels[0];
    if (inner.type === "cloud") module.backend = "cloud";
    if (inner.type !== "required_providers") continue;
    for (const [name, attribute] of inner.body.attributes) {
      const expr = attribute.expr;
      const fields = expr.kind === "object" ? Object.fromEntries(expr.items.map((i) => [i.key.kind === "variable" ? i.key.name : String(literal(i.key)), literal(i.value)])) : {};
      module.requiredProviders.push({
        name,
        ...(typeof fields.source === "string" ? { source: fields.source } : {}),
        ...(typeof fields.version === "string" ? { version: fields.version } : expr.kind === "literal" && typeof expr.value === "string" ? { version: expr.value } : {}),
        file,
        line: attribute.line,
      });
    }
  }
}

const literal = (expr: Expr | undefined) => (expr?.kind === "literal" ? expr.value : expr?.kind === "template" && expr.parts.every((p) => typeof p === "string") ? expr.parts.join("") : undefined);

/** A resource block's instances: one, one per count index, or one per for_each key; one unknown if it cannot be told. */
function instances(block: Block, file: string, mode: "managed" | "data", modulePath: string, scope: Scope): ResourceInstance[] {
  const [type = "", name = ""] = block.labels;
  const local = `${mode === "data" ? "data." : ""}${type}.${name}`;
  const address = modulePath ? `${modulePath}.${local}` : local;
  const make = (key: string | number | undefined, bound: Map<string, Value>): ResourceInstance => {
    const inner: Scope = { ...scope, bound };
    const lines: Record<string, number> = {};
    for (const [attr, a] of block.body.attributes) lines[attr] = a.line;
    for (const b of block.body.blocks) lines[b.type === "dynamic" ? (b.labels[0] ?? "dynamic") : b.type] ??= b.line;
    return {
      mode,
      type,
      name,
      address,
      instance: key === undefined ? address : `${address}[${typeof key === "number" ? key : JSON.stringify(key)}]`,
      file,
      line: block.line,
      endLine: block.endLine,
      conf: evaluateBody(block.body, inner),
      lines,
      references: referencesIn(block.body),
      modulePath,
    };
  };
  const count = block.body.attributes.get("count");
  if (count) {
    const n = evaluate(count.expr, scope);
    if (typeof n === "number") return Array.from({ length: n }, (_, i) => make(i, new Map([["count", { index: i }]])));
    return [make(undefined, new Map([["count", { index: new Unknown("other", "count.index") }]]))];
  }
  const forEach = block.body.attributes.get("for_each");
  if (forEach) {
    const collection = evaluate(forEach.expr, scope);
    const entries: [string, Value][] | undefined = Array.isArray(collection)
      ? collection.map((v) => [String(v), v])
      : collection && typeof collection === "object" && !isUnknown(collection)
        ? Object.entries(collection)
        : undefined;
    if (entries) return entries.map(([key, value]) => make(key, new Map([["each", { key, value }]])));
    const unknown = new Unknown("other", "each");
    return [make(undefined, new Map([["each", { key: unknown, value: unknown }]]))];
  }
  return [make(undefined, new Map())];
}

const metaArguments = new Set(["count", "for_each", "provider", "depends_on", "lifecycle"]);

/** A body's attributes and blocks as values; `dynamic` blocks are expanded where their for_each is known. */
export function evaluateBody(body: Body, scope: Scope, top = true): Record<string, Value> {
  const conf: Record<string, Value> = {};
  for (const [name, attribute] of body.attributes) if (!top || !metaArguments.has(name)) conf[name] = evaluate(attribute.expr, scope);
  for (const block of body.blocks) {
    if (block.type === "dynamic") {
      const label = block.labels[0] ?? "";
      const list = (conf[label] ??= []) as Value[];
      const content = block.body.blocks.find((b) => b.type === "content");
      const forEach = block.body.attributes.get("for_each");
      const collection = forEach ? evaluate(forEach.expr, scope) : [];
      const iterator = block.body.attributes.get("iterator")?.expr;
      const name = iterator?.kind === "variable" ? iterator.name : label;
      if (!content) continue;
      if (isUnknown(collection)) {
        list.push(evaluateBody(content.body, { ...scope, bound: new Map(scope.bound).set(name, collection) }, false));
        continue;
      }
      const entries = Array.isArray(collection) ? collection.map((v, i) => [i, v] as const) : collection && typeof collection === "object" ? Object.entries(collection) : [];
      for (const [key, value] of entries) list.push(evaluateBody(content.body, { ...scope, bound: new Map(scope.bound).set(name, { key, value }) }, false));
      continue;
    }
    if (top && block.type === "lifecycle") continue;
    ((conf[block.type] ??= []) as Value[]).push(evaluateBody(block.body, scope, false));
  }
  return conf;
}

/** The resources and data sources a body's expressions name, as `type.name` or `data.type.name`. */
function referencesIn(body: Body): Set<string> {
  const found = new Set<string>();
  const visit = (expr: Expr): void => {
    switch (expr.kind) {
      case "traversal": {
        const attrs = expr.steps.filter((s): s is { attr: string } => "attr" in s).map((s) => s.attr);
        if (expr.base.kind === "variable") {
          const base = expr.base.name;
          if (base === "data" && attrs.length >= 2) found.add(`data.${attrs[0]}.${attrs[1]}`);
          else if (base.includes("_") && attrs.length >= 1) found.add(`${base}.${attrs[0]}`);
        } else visit(expr.base);
        for (const step of expr.steps) if ("index" in step) visit(step.index);
        return;
      }
      case "template":
        return expr.parts.forEach((p) => typeof p !== "string" && visit(p));
      case "tuple":
        return expr.items.forEach(visit);
      case "object":
        return expr.items.forEach((i) => (visit(i.key), visit(i.value)));
      case "call":
        return expr.args.forEach(visit);
      case "conditional":
        return [expr.condition, expr.then, expr.otherwise].forEach(visit);
      case "unary":
        return visit(expr.operand);
      case "binary":
        return (visit(expr.left), visit(expr.right));
      case "for":
        return [expr.collection, expr.valueExpr, ...(expr.keyExpr ? [expr.keyExpr] : []), ...(expr.condition ? [expr.condition] : [])].forEach(visit);
    }
  };
  const walk = (b: Body) => {
    for (const attribute of b.attributes.values()) visit(attribute.expr);
    b.blocks.forEach((inner) => walk(inner.body));
  };
  walk(body);
  return found;
}
