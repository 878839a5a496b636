import type { CallTarget, Expr, Term } from "../../syntax/ast.ts";
import type { CompiledRule, DocNode, RuleCode } from "../../plan/tree.ts";
import type { Location } from "../../values/errors.ts";
import { keyOf, type Value } from "../../values/values.ts";
import { Constants, type DataPath } from "./source.ts";


/**
 * The rule as code, or null when it uses what the generator leaves to the closures (`with`, patterns
 * that destructure, walks of the rule tree by a variable, the whole data document).
 *
 * Policy text never becomes code: every constant, key, node, built-in and location the code uses is an
 * entry of a table the function closes over (`k3`), and every identifier is one the generator made up
 * (`v2` for slot 2, `t5` for a temporary, `L1` for a label). The source holds only shapes chosen here.
 */
export function generate(rule: CompiledRule, root: DocNode): RuleCode | null {
  const constants = new Constants();
  const statements = attempt(() => new RuleEmitter(rule, root, constants).statements("return prior;"));
  if (statements === null) return null;
  return constants.make<RuleCode>(
    [`return function rule(run, prior, args, loc, add) {`, `const ${CONTEXT};`, statements, `return prior;`, `};`].join("\n"),
  );
}

/**
 * The rule as a labelled block inside a function that holds its node (see nodes.ts), with `run`, `prior`,
 * `args` and `loc` in scope and the names of `CONTEXT` declared; null when closures must serve it.
 */
export function inlineRule(rule: CompiledRule, root: DocNode, constants: Constants, label: string): string | null {
  const statements = attempt(() => new RuleEmitter(rule, root, constants).statements(`break ${label};`));
  return statements === null ? null : `${label}: {\n${statements}\n}`;
}

/** What a rule's code reads once, at its start: the evaluation's own context, input, data and step limit. */
export const CONTEXT = "CTX = run.ctx, IN = CTX.input, D = CTX.data, MAX_STEPS = run.maxSteps";

function attempt(emit: () => string): string | null {
  try {
    return emit();
  } catch (e) {
    if (e === UNSUPPORTED) return null;
    throw e;
  }
}

const UNSUPPORTED = Symbol("unsupported");
const unsupported = (): never => {
  throw UNSUPPORTED;
};

/** Code to run when an expression has no (more) solutions: a `continue` or `break` to a label. */
type Fail = string;
/** Continues with a defined value, named by an identifier, and the current failure jump. */
type Then = (value: string, fail: Fail) => string;
type Rest = (fail: Fail) => string;

class RuleEmitter {
  private temps = 0;
  private labels = 0;
  /** Slots bound where the code being emitted runs: known statically, since bodies are ordered. */
  private bound = new Set<number>();

  constructor(
    private readonly rule: CompiledRule,
    private readonly root: DocNode,
    private readonly constants: Constants,
  ) {}

  /** The rule's statements, its locals declared first; `exit` leaves the rule with `prior` as its value. */
  statements(exit: string): string {
    const r = this.rule;
    const params = this.params(exit);
    const paramSlots = new Set(this.bound);
    const branches = [{ body: r.body, value: r.value }, ...r.elses];
    let code = "";
    for (const branch of branches) {
      this.bound = new Set(paramSlots);
      const label = this.label();
      const solution: Rest = r.kind === "partial" ? (fail) => this.addSolution(fail) : (fail) => this.valueSolution(branch.value, fail, label);
      code += `held = false;\n${label}: {\n${this.body(branch.body, 0, `break ${label};`, solution)}\n}\nif (held) ${exit}\n`;
    }
    const slots = Array.from({ length: r.slots }, (_, i) => `v${i}`);
    const temps = Array.from({ length: this.temps }, (_, i) => `t${i}`);
    return [`let held = false${[...slots, ...temps].map((n) => `, ${n}`).join("")};`, params, code].join("\n");
  }

  // ---- names

  private k(value: unknown): string {
    return this.constants.name(value);
  }

  private temp(): string {
    return `t${this.temps++}`;
  }

  private label(): string {
    return `L${this.labels++}`;
  }

  /** Runs `then` with `slot` bound (statically), and unbound again for the code emitted after it. */
  private binding(slot: number, then: () => string): string {
    this.bound.add(slot);
    const code = then();
    this.bound.delete(slot);
    return code;
  }

  // ---- rules

  /** Binds a function's parameters from `args` (plain variables or constants; patterns are left to closures). */
  private params(exit: string): string {
    let code = "";
    this.rule.args.forEach((a, i) => {
      if (a.type === "value") code += `if (!equal(${this.k(a.value)}, args[${i}])) ${exit}\n`;
      else if (a.type === "var" && a.slot !== undefined) {
        if (this.bound.has(a.slot)) code += `if (!equal(v${a.slot}, args[${i}])) ${exit}\n`;
        else code += `v${a.slot} = args[${i}];\n`;
        this.bound.add(a.slot);
      } else unsupported();
    });
    return code;
  }

  /**
   * A body's solution for a complete rule or function: a constant value needs the first solution only,
   * a computed one every solution (two different values are a conflict). A body that held counts even
   * when its value is undefined: the elses are not tried.
   */
  private valueSolution(value: Term, fail: Fail, label: string): string {
    const r = this.rule;
    const merged = (v: string) => `prior = prior === undefined ? ${v} : merge(prior, ${v}, ${this.k(r.node)}, loc, ${r.kind === "function"});`;
    if (value.type === "value") return `${merged(this.k(value.value))}\nheld = true;\nbreak ${label};`;
    return `held = true;\n${this.term(value, fail, (v, f) => `${merged(v)}\n${f}`)}`;
  }

  /** A partial rule's solution: each combination of its head's keys and value is added. */
  private addSolution(fail: Fail): string {
    const keys = this.rule.keys;
    const from = (i: number, names: string[], f: Fail): string =>
      i === keys.length
        ? this.term(this.rule.value, f, (v, f2) => `add([${names.join(", ")}], ${v});\n${f2}`)
        : this.term(keys[i]!, f, (key, f2) => from(i + 1, [...names, key], f2));
    return from(0, [], fail);
  }

  // ---- bodies

  /** Expressions from `i` on; `done` is emitted once per solution, with the jump to the next one. */
  private body(exprs: readonly Expr[], i: number, fail: Fail, done: Rest): string {
    if (i === exprs.length) return done(fail);
    return this.expr(exprs[i]!, fail, (f) => this.body(exprs, i + 1, f, done));
  }

  private expr(e: Expr, fail: Fail, rest: Rest): string {
    if (e.compiledWith?.length) unsupported();
    const step = `if (++run.steps > MAX_STEPS) run.tooManySteps(${this.k(e.loc)});\n`;
    if (!e.negated) return step + this.positive(e, fail, rest);
    // `not e`: a solution of e jumps to the failure; running out of them leaves the block. Bindings stay inside.
    const label = this.label();
    const saved = this.bound;
    this.bound = new Set(saved);
    const inner = this.positive(e, `break ${label};`, () => fail);
    this.bound = saved;
    return `${step}${label}: {\n${inner}\n}\n${rest(fail)}`;
  }

  private positive(e: Expr, fail: Fail, rest: Rest): string {
    switch (e.type) {
      case "term": {
        const t = e.term;
        if (t.type === "call" && t.target && t.args.length === t.target.arity + 1) {
          const inputs = t.args.slice(0, -1);
          return this.args(inputs, 0, [], fail, (names, f) => this.call(t.target!, names, t.loc, f, (r, f2) => this.match(t.args[inputs.length]!, r, f2, rest)));
        }
        return this.term(t, fail, (v, f) => `if (${v} === false) ${f}\n${rest(f)}`);
      }
      case "unify":
      case "assign": {
        const { left, right } = e;
        const ls = this.unboundSlot(left);
        const rs = this.unboundSlot(right);
        if (ls >= 0 && rs < 0) return this.term(right, fail, (v, f) => this.match(left, v, f, rest));
        if (rs >= 0 && ls < 0) return this.term(left, fail, (v, f) => this.match(right, v, f, rest));
        if (ls >= 0 || this.hasPattern(left) || this.hasPattern(right)) unsupported();
        return this.term(left, fail, (a, f) => this.term(right, f, (b, f2) => `if (!(${a} === ${b} || equal(${a}, ${b}))) ${f2}\n${rest(f2)}`));
      }
      case "somein":
        return this.term(e.domain, fail, (c, f) =>
          this.members(c, e.key !== undefined, f, (key, value, next) => this.match(e.value, value, next, (f2) => (e.key ? this.match(e.key, key!, f2, rest) : rest(f2)))),
        );
      case "every":
        return this.term(e.domain, fail, (c, f) => {
          // Each member must match and give the body a solution; the first that does not fails the expression.
          const saved = this.bound;
          this.bound = new Set(saved);
          const check = (next: Fail) => this.body(e.body, 0, f, () => next);
          const loop = this.members(c, e.key !== undefined, "", (key, value, next) =>
            this.match(e.value, value, f, () => (e.key ? this.match(e.key, key!, f, () => check(next)) : check(next))),
          );
          this.bound = saved;
          return `if (!isCollection(${c})) ${f}\n${loop}\n${rest(f)}`;
        });
      case "logic":
        return unsupported(); // the closures serve and/or operands
      case "some":
        return rest(fail);
    }
  }

  /**
   * Loops over a collection's members: `each(key, value, next)` is emitted inside, `next` jumping to the
   * following member; `after` runs when they run out.
   */
  private members(c: string, withKeys: boolean, after: string, each: (key: string | undefined, value: string, next: Fail) => string): string {
    const values = this.temp();
    const keys = withKeys ? this.temp() : undefined;
    const i = this.temp();
    const value = this.temp();
    const key = withKeys ? this.temp() : undefined;
    const label = this.label();
    const next = `continue ${label};`;
    return [
      `${values} = valuesOf(${c});`,
      keys ? `${keys} = keysOf(${c});` : "",
      `${label}: for (${i} = 0; ${i} < ${values}.length; ${i}++) {`,
      `${value} = ${values}[${i}];`,
      key ? `${key} = ${keys} === null ? ${i} : ${keys}[${i}];` : "",
      each(key, value, next),
      `}`,
      after,
    ].join("\n");
  }

  /** Matches a term against a value: an unbound variable is bound, anything else compared. */
  private match(t: Term, value: string, fail: Fail, rest: Rest): string {
    const slot = this.unboundSlot(t);
    if (slot >= 0) return `v${slot} = ${value};\n${this.binding(slot, () => rest(fail))}`;
    if (this.hasPattern(t)) unsupported();
    return this.term(t, fail, (v, f) => `if (!(${v} === ${value} || equal(${v}, ${value}))) ${f}\n${rest(f)}`);
  }

  private unboundSlot(t: Term): number {
    return t.type === "var" && t.slot !== undefined && !this.bound.has(t.slot) ? t.slot : -1;
  }

  /** Whether a term has unbound variables where a pattern binds them (itself, array items, object values). */
  private hasPattern(t: Term): boolean {
    if (t.type === "var") return this.unboundSlot(t) >= 0;
    if (t.type === "array") return t.items.some((i) => this.hasPattern(i));
    if (t.type === "object") return t.items.some(([, v]) => this.hasPattern(v));
    return false;
  }

  // ---- terms

  /** Evaluates a term; `then` runs once per value (refs with unbound variables iterate), `fail` when there is none. */
  private term(t: Term, fail: Fail, then: Then): string {
    switch (t.type) {
      case "value":
        return then(this.k(t.value), fail);
      case "var":
        if (t.slot !== undefined) return this.bound.has(t.slot) ? then(`v${t.slot}`, fail) : unsupported();
        if (t.name === "input") return `if (IN === undefined) ${fail}\n${then("IN", fail)}`;
        return unsupported();
      case "ref":
        return this.ref(t, fail, then);
      case "call":
        return this.args(t.args, 0, [], fail, (names, f) => this.call(t.target!, names, t.loc, f, then));
      case "array":
      case "set":
        return this.args(t.items, 0, [], fail, (names, f) => {
          const out = this.temp();
          return `${out} = ${t.type === "array" ? `[${names.join(", ")}]` : `RSet.of([${names.join(", ")}])`};\n${then(out, f)}`;
        });
      case "object":
        return this.object(t.items, fail, then);
      case "arraycomp":
      case "setcomp":
        return this.comprehension(t.type === "arraycomp" ? "[]" : "new RSet()", t.body, fail, then, (out, f) =>
          this.term(t.head, f, (v, f2) => `${out}.${t.type === "arraycomp" ? "push" : "add"}(${v});\n${f2}`),
        );
      case "objectcomp":
        return this.comprehension("new RObject()", t.body, fail, then, (out, f) =>
          this.term(t.key, f, (key, f2) =>
            this.term(t.value, f2, (v, f3) => {
              const prev = this.temp();
              return `${prev} = ${out}.get(${key});\nif (${prev} !== undefined && !equal(${prev}, ${v})) throw conflict(${this.k(t.loc)});\n${out}.set(${key}, ${v});\n${f3}`;
            }),
          ),
        );
    }
  }

  /** Evaluates terms left to right (each may iterate), then runs `then` with their names. */
  private args(terms: readonly Term[], i: number, names: string[], fail: Fail, then: (names: string[], fail: Fail) => string): string {
    if (i === terms.length) return then(names, fail);
    return this.term(terms[i]!, fail, (v, f) => this.args(terms, i + 1, [...names, v], f, then));
  }

  /** An object literal. Distinct constant string keys (the usual kind) are sorted once, here, so it never needs sorting. */
  private object(items: readonly [Term, Term][], fail: Fail, then: Then): string {
    const keys = items.map(([key]) => (key.type === "value" && typeof key.value === "string" && keyOf(key.value) === key.value ? key.value : undefined));
    const plain = keys.every((key) => key !== undefined) && new Set(keys).size === keys.length;
    return this.args(items.flat(), 0, [], fail, (names, f) => {
      const out = this.temp();
      if (plain) {
        const order = items.map((_, i) => i).sort((a, b) => (keys[a]! < keys[b]! ? -1 : 1));
        const sorted = order.map((i) => names[2 * i + 1]).join(", ");
        return `${out} = RObject.sorted(${this.k(order.map((i) => keys[i]!))}, [${sorted}]);\n${then(out, f)}`;
      }
      const sets = items.map((_, i) => `${out}.set(${names[2 * i]}, ${names[2 * i + 1]});`).join("\n");
      return `${out} = new RObject();\n${sets}\n${then(out, f)}`;
    });
  }

  /** A comprehension: its body's solutions collected (`collect` emitted per solution), one value in the end. */
  private comprehension(empty: string, body: readonly Expr[], fail: Fail, then: Then, collect: (out: string, fail: Fail) => string): string {
    const out = this.temp();
    const label = this.label();
    const saved = this.bound;
    this.bound = new Set(saved);
    const inner = this.body(body, 0, `break ${label};`, (f) => collect(out, f));
    this.bound = saved;
    return `${out} = ${empty};\n${label}: {\n${inner}\n}\n${then(out, fail)}`;
  }

  private call(target: CallTarget, args: string[], loc: Location, fail: Fail, then: Then): string {
    const out = this.temp();
    if (target.kind === "function")
      return `${out} = callFunction(run, ${this.k(target.node)}, [${args.join(", ")}], ${this.k(loc)});\nif (${out} === undefined) ${fail}\n${then(out, fail)}`;
    const b = target.builtin;
    if (b.relation) return unsupported(); // each result continues the body: the closures iterate them
    if (b.binary) {
      const [x, y] = args as [string, string];
      // Numbers compare natively; a constant operand's type is known here.
      const isNumber = (name: string) => {
        const c = this.constants.valueOf(name);
        return c === undefined ? `typeof ${name} === "number"` : typeof c.value === "number" ? "" : undefined;
      };
      const checks = [isNumber(x), isNumber(y)];
      const numbers = checks.includes(undefined) ? undefined : checks.filter((check) => check).join(" && ") || "true";
      const order = (op: string) => (numbers === undefined ? `compare(${x}, ${y}) ${op} 0` : `${numbers} ? ${x} ${op} ${y} : compare(${x}, ${y}) ${op} 0`);
      const inline: Record<string, string> = {
        equal: `${x} === ${y} || equal(${x}, ${y})`,
        neq: `!(${x} === ${y} || equal(${x}, ${y}))`,
        lt: order("<"),
        lte: order("<="),
        gt: order(">"),
        gte: order(">="),
      };
      const operator = Object.hasOwn(inline, b.name) ? inline[b.name] : `${this.k(b.binary)}(${x}, ${y})`;
      return `${out} = ${operator};\n${then(out, fail)}`;
    }
    // A built-in keeps nothing of its arguments, and nothing runs between filling the array and the call.
    const argv = this.k(new Array(args.length));
    const fill = args.map((a, i) => `${argv}[${i}] = ${a};`).join(" ");
    return [
      fill,
      `try { ${out} = ${this.k(b.fn)}(${argv}, run); } catch (e) { ${out} = builtinFailure(run, e, ${this.k(b.name)}, ${this.k(loc)}); }`,
      `if (${out} === undefined) ${fail}`,
      then(out, fail),
    ].join("\n");
  }

  // ---- refs

  private ref(t: Term & { type: "ref" }, fail: Fail, then: Then): string {
    const head = t.head;
    if (head.type === "var" && head.slot === undefined && head.name === "data") return this.dataRef(t.path, fail, then);
    return this.term(head, fail, (v, f) => this.steps(t.path, 0, v, f, then));
  }

  /** Walks a value down a ref's path from step `i`: constants and bound variables look up, unbound variables iterate. */
  private steps(path: readonly Term[], i: number, value: string, fail: Fail, then: Then): string {
    if (i === path.length) return then(value, fail);
    const p = path[i]!;
    const out = this.temp();
    const next = (f: Fail) => this.steps(path, i + 1, out, f, then);
    if (p.type === "value") {
      const key = p.value;
      const found =
        typeof key === "string"
          ? `${value} instanceof RObject ? ${value}.at(${this.k(keyOf(key))}) : lookup(${value}, ${this.k(key)})`
          : typeof key === "number" && Number.isInteger(key) && key >= 0
            ? `Array.isArray(${value}) ? ${value}[${this.k(key)}] : lookup(${value}, ${this.k(key)})`
            : `lookup(${value}, ${this.k(key)})`;
      return `${out} = ${found};\nif (${out} === undefined) ${fail}\n${next(fail)}`;
    }
    const slot = this.unboundSlot(p);
    if (slot >= 0) return this.members(value, true, fail, (key, member, f) => `v${slot} = ${key};\n${out} = ${member};\n${this.binding(slot, () => next(f))}`);
    if (this.hasPattern(p)) unsupported();
    return this.term(p, fail, (key, f) => `${out} = lookup(${value}, ${key});\nif (${out} === undefined) ${f}\n${next(f)}`);
  }

  /**
   * A data ref: its constant steps are followed down the rule tree at generation time. Where they leave it,
   * the rest is a lookup in the data document; where they reach rules, the node's value is read (a complete
   * rule's node through its own generated function once that is warm) and the rest of the path walked in it.
   */
  private dataRef(path: readonly Term[], fail: Fail, then: Then): string {
    let node = this.root;
    let i = 0;
    for (; node.hasRules && !node.isLeaf && i < path.length; i++) {
      const p = path[i]!;
      if (p.type !== "value") unsupported();
      const child = node.childAt[keyOf((p as { value: Value }).value)];
      if (!child) break;
      node = child;
    }
    const out = this.temp();
    if (!node.hasRules || (i < path.length && !node.isLeaf)) {
      // Beside all rules: a plain lookup of the constant prefix.
      let n = 0;
      while (n < path.length && path[n]!.type === "value") n++;
      const base = this.dataPath(path, n);
      return `${out} = ${base};\nif (${out} === undefined) ${fail}\n${this.steps(path, n, out, fail, then)}`;
    }
    const k = this.k(node);
    if (node.complete.length || node.defaultRule?.kind === "complete") {
      return `${out} = ${k}.code !== undefined ? ${k}.code(run) : docValue(run, ${k}, undefined);\nif (${out} === undefined) ${fail}\n${this.steps(path, i, out, fail, then)}`;
    }
    return `${out} = docValue(run, ${k}, ${this.dataPath(path, i)});\nif (${out} === undefined) ${fail}\n${this.steps(path, i, out, fail, then)}`;
  }

  /** The data document's value at the first `n` (constant) steps of a path, cached per document. */
  private dataPath(path: readonly Term[], n: number): string {
    if (n === 0) return "D";
    const c = this.k({ keys: path.slice(0, n).map((p) => (p as { value: Value }).value), from: undefined, found: undefined } satisfies DataPath);
    return `(${c}.from === D ? ${c}.found : readData(${c}, D))`;
  }
}
