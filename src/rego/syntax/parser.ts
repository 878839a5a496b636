import type { Body, Expr, Import, Module, Rule, RuleHead, Term, VarTerm, With } from "./ast.ts";
import { RegoError, type Location } from "../values/errors.ts";
import { type TemplatePart, type Token, tokenize } from "./lexer.ts";
import { parseNumber } from "../values/numbers.ts";

const RELATIONS: Record<string, string> = { "==": "equal", "!=": "neq", "<": "lt", "<=": "lte", ">": "gt", ">=": "gte" };
const ARITH: Record<string, string> = { "+": "plus", "-": "minus" };
const FACTOR: Record<string, string> = { "*": "mul", "/": "div", "%": "rem" };
const KEYWORDS = new Set(["package", "import", "default", "else", "if", "contains", "some", "in", "every", "not", "with", "as"]);
/** Deeper nesting is refused with a parse error instead of exhausting the stack. */
const MAX_NESTING = 200;

export function parseModule(source: string, file: string): Module {
  return new Parser(source, file).module();
}

export function parseQuery(source: string, file = ""): Body {
  return new Parser(source, file).query();
}

/** Parses one term (e.g. an `input_term` such as `{"x": 1}`). */
export function parseTerm(source: string, file = "term"): Term {
  return new Parser(source, file).singleTerm();
}

class Parser {
  private readonly tokens: Token[];
  private pos = 0;
  /** Inside brackets or parens line breaks do not end a literal. */
  private bracketDepth = 0;
  private nesting = 0;
  /** While parsing a comprehension head, `|` ends the head instead of being set union. */
  private noOr = false;
  /** `and` and `or` join expressions (future.keywords.and/or/not or rego.v2 imported). */
  private logic = false;

  constructor(
    private readonly source: string,
    private readonly file: string,
  ) {
    this.tokens = tokenize(source, file);
  }

  // ---- token helpers

  private get tok(): Token {
    return this.tokens[this.pos]!;
  }
  private peek(offset = 1): Token {
    return this.tokens[Math.min(this.pos + offset, this.tokens.length - 1)]!;
  }
  private next(): Token {
    const t = this.tok;
    if (t.kind !== "eof") this.pos++;
    return t;
  }
  private is(text: string, t = this.tok): boolean {
    return (t.kind === "punct" || t.kind === "ident") && t.text === text;
  }
  /** The keyword `text`, and not a ref that starts with it (`else.x := 1`). */
  private keyword(text: string): boolean {
    return this.is(text) && !this.keywordStartsRef();
  }
  /** The current token continues the expression (no line break, unless inside brackets). */
  private sameLine(): boolean {
    return this.bracketDepth > 0 || !this.tok.nl;
  }
  private atEnd(): boolean {
    return this.tok.kind === "eof";
  }
  private accept(text: string): boolean {
    if (!this.is(text)) return false;
    this.next();
    return true;
  }
  private expect(text: string, what?: string): Token {
    if (!this.is(text)) this.fail(`expected ${what ?? `'${text}'`} but found ${describe(this.tok)}`);
    return this.next();
  }
  private fail(message: string, loc: Location = this.tok.loc): never {
    throw new RegoError("rego_parse_error", message, loc);
  }
  private ident(what: string): Token {
    if (this.tok.kind !== "ident" || KEYWORDS.has(this.tok.text)) this.fail(`expected ${what} but found ${describe(this.tok)}`);
    return this.next();
  }
  /** Any name, keywords included: what follows a '.' in a ref (`data.foo.if`, `input.in`). */
  private name(what: string): Token {
    if (this.tok.kind !== "ident") this.fail(`expected ${what} but found ${describe(this.tok)}`);
    return this.next();
  }
  /** The first name of a ref: a keyword too when a '.' or '[' follows at once (`if.foo := 1`). */
  private refName(what: string): Token {
    return this.keywordStartsRef() ? this.next() : this.ident(what);
  }
  private keywordStartsRef(): boolean {
    return KEYWORDS.has(this.tok.text) && this.startsRef();
  }
  /** A name directly followed by '.' or '[': the head of a ref, whatever the name (`true.x`, `if.y`). */
  private startsRef(): boolean {
    const t = this.tok;
    if (t.kind !== "ident") return false;
    const after = this.peek();
    return (after.text === "." || after.text === "[") && after.kind === "punct" && !after.nl && after.loc.row === t.loc.row && after.loc.col === t.loc.col + t.text.length;
  }

  // ---- module level

  module(): Module {
    if (!this.is("package")) this.fail(`expected 'package' but found ${describe(this.tok)}`);
    this.next();
    const pkg = this.packagePath();
    const imports: Import[] = [];
    while (this.keyword("import")) imports.push(this.importDecl());
    this.logic = imports.some((i) => {
      const path = i.path.map((t) => (t.type === "value" ? t.value : undefined));
      return (i.root === "rego" && path[0] === "v2") || (i.root === "future" && path[0] === "keywords" && (path.length === 1 || ["and", "or", "not"].includes(path[1] as string)));
    });
    const rules: Rule[] = [];
    while (this.tok.kind !== "eof") {
      if (this.keyword("import")) this.fail("imports must come before rules");
      if (this.keyword("package")) this.fail("a module has exactly one package declaration");
      if (this.keyword("else")) this.fail("'else' must follow a rule body");
      if (!this.tok.nl && rules.length > 0) this.fail(`unexpected ${describe(this.tok)}: a rule must start on a new line`);
      rules.push(this.rule());
    }
    return { file: this.file, pkg, imports, rules };
  }

  private packagePath(): string[] {
    const path = [this.refName("package name").text];
    for (;;) {
      if (this.is(".") && !this.tok.nl) {
        this.next();
        path.push(this.name("package name").text);
      } else if (this.is("[") && !this.tok.nl) {
        this.next();
        if (this.tok.kind !== "string") this.fail("package path elements must be strings");
        path.push(this.next().text);
        this.expect("]");
      } else return path;
    }
  }

  private importDecl(): Import {
    const loc = this.next().loc;
    const head = this.ident("import path");
    const root = head.text;
    if (root !== "data" && root !== "input" && root !== "future" && root !== "rego")
      this.fail(`import path must begin with data, input, future or rego, not '${root}'`, head.loc);
    const path: Term[] = [];
    for (;;) {
      if (this.is(".") && !this.tok.nl) {
        this.next();
        const t = this.name("a name after '.'");
        path.push({ type: "value", value: t.text, loc: t.loc });
      } else if (this.is("[") && !this.tok.nl) {
        this.next();
        const t = this.next();
        if (t.kind !== "string") this.fail("import path elements must be strings", t.loc);
        path.push({ type: "value", value: t.text, loc: t.loc });
        this.expect("]");
      } else break;
    }
    let alias: string | undefined;
    if (this.is("as") && !this.tok.nl) {
      this.next();
      alias = this.ident("import alias").text;
    }
    return { path, root, alias, loc };
  }

  private rule(): Rule {
    const loc = this.tok.loc;
    const isDefault = this.keyword("default") && !!this.next();
    const ref = this.headRef();
    let args: Term[] | undefined;
    if (this.is("(") && !this.tok.nl) {
      this.next();
      args = this.list(")");
    }
    const head: RuleHead = { ref, args, multi: false, assign: false };
    if (this.is("contains") && this.sameLine()) {
      if (args) this.fail("a function cannot use 'contains'");
      this.next();
      head.multi = true;
      head.value = this.infix(false);
    } else if ((this.is(":=") || this.is("=")) && this.sameLine()) {
      this.next();
      head.assign = true;
      head.value = this.infix(false);
    }
    if (isDefault) {
      if (!head.value || head.multi) this.fail("a default rule needs a value: default <name> := <term>", loc);
      if (this.is("if") && this.sameLine()) this.fail("a default rule cannot have a body", loc);
      return { head, body: [], isDefault, elses: [], loc };
    }
    let body: Body = [];
    if (this.is("if") && !this.tok.nl) {
      this.next();
      body = this.ruleBody();
    } else if (this.is("{") && !this.tok.nl) {
      this.fail("a rule body needs the 'if' keyword (Rego v1)");
    } else if (!head.value) {
      this.fail(`rule '${refText(ref)}' needs a value (':='), 'contains' or a body ('if')`, loc);
    }
    const elses: Rule["elses"] = [];
    while (this.keyword("else")) {
      if (head.multi || head.ref.slice(1).some((t) => t.type !== "value")) this.fail("'else' is only allowed on complete rules and functions");
      const elseLoc = this.next().loc;
      let value: Term | undefined;
      if (this.accept(":=") || this.accept("=")) value = this.infix(false);
      let elseBody: Body = [];
      if (this.is("if") && !this.tok.nl) {
        this.next();
        elseBody = this.ruleBody();
      } else if (this.is("{") && !this.tok.nl) this.fail("an else body needs the 'if' keyword (Rego v1)");
      elses.push({ value, body: elseBody, loc: elseLoc });
    }
    return { head, body, isDefault, elses, loc };
  }

  private headRef(): Term[] {
    const first = this.refName("rule name");
    const ref: Term[] = [{ type: "var", name: first.text, loc: first.loc }];
    for (;;) {
      if (this.is(".") && !this.tok.nl) {
        this.next();
        const t = this.name("rule name");
        ref.push({ type: "value", value: t.text, loc: t.loc });
      } else if (this.is("[") && !this.tok.nl) {
        this.next();
        this.bracketDepth++;
        ref.push(this.infix(false));
        this.bracketDepth--;
        this.expect("]");
      } else return ref;
    }
  }

  private ruleBody(): Body {
    if (!this.is("{")) return [this.literal()];
    // `if {` opens a block, unless what follows is no body: then it is a one-literal body that starts with
    // an object or set term (`if {x: i | ...}`), as OPA reads it.
    const saved = { pos: this.pos, depth: this.bracketDepth, noOr: this.noOr, nesting: this.nesting };
    try {
      return this.block();
    } catch (error) {
      if (!(error instanceof RegoError)) throw error;
      const blockError = error;
      Object.assign(this, saved);
      try {
        return [this.literal()];
      } catch {
        throw blockError;
      }
    }
  }

  private block(): Body {
    this.expect("{");
    const body = this.literals("}");
    this.expect("}");
    return body;
  }

  /** Literals separated by `;` or line breaks, up to (not including) `close`. */
  private literals(close: string): Body {
    const saved = this.bracketDepth;
    this.bracketDepth = 0;
    const body: Body = [];
    while (!this.is(close)) {
      if (this.tok.kind === "eof") this.fail(`expected '${close}' but found end of input`);
      body.push(this.literal());
      if (this.accept(";")) continue;
      if (!this.is(close) && !this.tok.nl) this.fail(`unexpected ${describe(this.tok)}: expected ';', a new line or '${close}'`);
    }
    this.bracketDepth = saved;
    if (body.length === 0) this.fail("a body must not be empty");
    return body;
  }

  query(): Body {
    const body: Body = [];
    while (this.tok.kind !== "eof") {
      body.push(this.literal());
      if (this.accept(";")) continue;
      if (!this.atEnd() && !this.tok.nl) this.fail(`unexpected ${describe(this.tok)}`);
    }
    if (body.length === 0) this.fail("empty query");
    return body;
  }

  singleTerm(): Term {
    const t = this.infix(false);
    if (this.tok.kind !== "eof") this.fail(`unexpected ${describe(this.tok)}`);
    return t;
  }

  // ---- literals

  private literal(): Expr {
    if (!this.logic) return this.simpleLiteral(true);
    // `with` binds looser than `and`/`or`: after the last operand it modifies the whole expression.
    return this.withModifiers(this.logicOr(false));
  }

  private withModifiers(expr: Expr): Expr {
    while (this.keyword("with")) expr.with.push(this.withModifier());
    return expr;
  }

  // `or` binds loosest, then `and`, then `not`; an operand is an expression, `( ... )` or a block `{ ... }`.
  private logicOr(inLogic: boolean): Expr {
    const loc = this.tok.loc;
    const operands = [this.logicAnd(inLogic)];
    while (this.keyword("or") && this.sameLine()) {
      this.next();
      operands.push(this.logicAnd(true));
    }
    return operands.length === 1 ? operands[0]! : logicExpr("or", operands.map((e) => [e]), loc);
  }

  private logicAnd(inLogic: boolean): Expr {
    const loc = this.tok.loc;
    const first = this.logicUnary(inLogic);
    const operands = [first];
    while (this.keyword("and") && this.sameLine()) {
      this.next();
      operands.push(this.logicUnary(true));
    }
    return operands.length === 1 ? first : logicExpr("and", operands.map((e) => [e]), loc);
  }

  private logicUnary(inLogic: boolean): Expr {
    const loc = this.tok.loc;
    if (this.keyword("not") && (this.is("{", this.peek()) || this.is("(", this.peek()))) {
      this.next();
      const inner = this.logicUnary(true);
      if (inner.type !== "logic" && !inner.negated) return { ...inner, negated: true };
      return { ...logicExpr("and", [[inner]], loc), negated: true };
    }
    if (this.is("{") || this.is("(")) {
      const saved = { pos: this.pos, depth: this.bracketDepth, noOr: this.noOr, nesting: this.nesting };
      const restore = () => Object.assign(this, saved);
      try {
        let operand: Expr;
        if (this.is("{")) operand = logicExpr("and", [this.block()], loc);
        else {
          this.next();
          this.bracketDepth++;
          operand = this.withModifiers(this.logicOr(true));
          this.bracketDepth--;
          this.expect(")");
          // A group of one plain expression is a parenthesised term after all (`(1 + 2) * 3 == x`).
          if (operand.type !== "logic" && !operand.with.length) throw new RegoError("rego_parse_error", "a plain parenthesised term", loc);
          return operand;
        }
        // A block stands alone only beside `and`/`or`/`not`; otherwise it was a term (`{1, 2} == s`).
        if (inLogic || ((this.keyword("and") || this.keyword("or")) && this.sameLine())) return operand;
      } catch (error) {
        if (!(error instanceof RegoError)) throw error;
      }
      restore();
    }
    return this.simpleLiteral(false);
  }

  private simpleLiteral(takeWith: boolean): Expr {
    const loc = this.tok.loc;
    let expr: Expr;
    if (this.keyword("some")) expr = this.some();
    else {
      const negated = this.keyword("not") && !!this.next();
      if (this.keyword("every")) {
        if (negated) this.fail("'not every' is not supported; negate the body instead");
        expr = this.every();
      } else {
        const left = this.infix(true);
        if ((this.is("=") || this.is(":=")) && this.sameLine()) {
          const op = this.next().text;
          const right = this.infix(true);
          expr = { type: op === "=" ? "unify" : "assign", left, right, negated, with: [], loc };
        } else expr = { type: "term", term: left, negated, with: [], loc };
      }
    }
    return takeWith ? this.withModifiers(expr) : expr;
  }

  private withModifier(): With {
    const loc = this.next().loc;
    const target = this.term();
    if (target.type !== "var" && target.type !== "ref") this.fail("'with' needs a reference to replace", target.loc);
    this.expect("as");
    const value = this.infix(false);
    return { target, value, loc };
  }

  private some(): Expr {
    const loc = this.next().loc;
    const first = this.relation();
    let second: Term | undefined;
    const more: Term[] = [];
    while (this.accept(",")) {
      if (second === undefined) second = this.relation();
      else more.push(this.relation());
    }
    if (this.is("in") && this.sameLine()) {
      this.next();
      if (more.length) this.fail("'some ... in' takes one or two variables");
      const domain = this.relation();
      return second === undefined
        ? { type: "somein", value: first, domain, negated: false, with: [], loc }
        : { type: "somein", key: first, value: second, domain, negated: false, with: [], loc };
    }
    const vars = [first, ...(second ? [second] : []), ...more];
    for (const v of vars) if (v.type !== "var") this.fail("'some' declares variables: expected a variable name", v.loc);
    return { type: "some", vars: vars as VarTerm[], negated: false, with: [], loc };
  }

  private every(): Expr {
    const loc = this.next().loc;
    const first = this.relation();
    let second: Term | undefined;
    if (this.accept(",")) second = this.relation();
    this.expect("in", "'in'");
    const domain = this.relation();
    const body = this.block();
    return second === undefined
      ? { type: "every", value: first, domain, body, negated: false, with: [], loc }
      : { type: "every", key: first, value: second, domain, body, negated: false, with: [], loc };
  }

  // ---- terms with operators, lowest precedence first

  /** Membership (`x in xs`, `k, v in xs` when commas are allowed), left associative. */
  private infix(allowComma: boolean): Term {
    let lhs = this.relation();
    for (;;) {
      if (this.is("in") && this.sameLine()) {
        const loc = this.next().loc;
        lhs = call("internal.member_2", [lhs, this.relation()], loc);
      } else if (allowComma && this.is(",")) {
        const saved = this.pos;
        this.next();
        const value = this.relation();
        if (!this.is("in")) {
          this.pos = saved;
          return lhs;
        }
        const loc = this.next().loc;
        lhs = call("internal.member_3", [lhs, value, this.relation()], loc);
      } else return lhs;
    }
  }

  private relation(): Term {
    return this.binary(() => this.union(), RELATIONS);
  }
  private union(): Term {
    return this.binary(() => this.intersection(), this.noOr ? {} : { "|": "or" });
  }
  private intersection(): Term {
    return this.binary(() => this.arith(), { "&": "and" });
  }
  private arith(): Term {
    return this.binary(() => this.factor(), ARITH);
  }
  private factor(): Term {
    return this.binary(() => this.term(), FACTOR);
  }

  private binary(operand: () => Term, ops: Record<string, string>): Term {
    let lhs = operand();
    while (this.tok.kind === "punct" && this.tok.text in ops && this.sameLine()) {
      const op = this.next();
      lhs = call(ops[op.text]!, [lhs, operand()], op.loc);
    }
    return lhs;
  }

  // ---- primary terms and their postfix refs/calls

  term(): Term {
    if (++this.nesting > MAX_NESTING) this.fail(`expression nesting exceeds ${MAX_NESTING} levels`);
    const savedNoOr = this.noOr;
    let t = this.primary();
    for (;;) {
      if (!this.sameLine()) break;
      if (this.is(".") && this.peek().kind === "ident") {
        this.next();
        const name = this.next();
        t = extendRef(t, { type: "value", value: name.text, loc: name.loc });
      } else if (this.is("[")) {
        this.next();
        this.bracketDepth++;
        this.noOr = false;
        const key = this.infix(false);
        this.noOr = savedNoOr;
        this.bracketDepth--;
        this.expect("]");
        t = extendRef(t, key);
      } else if (this.is("(") && (t.type === "var" || t.type === "ref")) {
        this.next();
        t = { type: "call", fn: t, args: this.list(")"), loc: t.loc };
      } else break;
    }
    this.nesting--;
    return t;
  }

  private primary(): Term {
    const t = this.tok;
    const loc = t.loc;
    switch (t.kind) {
      case "number":
        this.next();
        return { type: "value", value: number(t.text, loc), loc };
      case "string":
        this.next();
        return { type: "value", value: t.text, loc };
      case "template":
        this.next();
        return this.template(t.parts!, loc);
      case "ident":
        // `contains` is also a built-in function: a keyword only where a call cannot be.
        if (KEYWORDS.has(t.text) && !(t.text === "contains" && this.is("(", this.peek())) && !this.keywordStartsRef()) this.fail(`unexpected keyword '${t.text}'`);
        const named = this.startsRef();
        this.next();
        if (!named && (t.text === "true" || t.text === "false")) return { type: "value", value: t.text === "true", loc };
        if (!named && t.text === "null") return { type: "value", value: null, loc };
        return { type: "var", name: t.text, loc };
      case "eof":
        this.fail("unexpected end of input");
    }
    if (t.text === "-" && this.peek().kind === "number" && this.peek().loc.col === loc.col + 1 && this.peek().loc.row === loc.row) {
      this.next();
      const n = this.next();
      return { type: "value", value: number(`-${n.text}`, loc), loc };
    }
    if (t.text === "(") {
      this.next();
      this.bracketDepth++;
      const saved = this.noOr;
      this.noOr = false;
      const inner = this.infix(true);
      this.noOr = saved;
      this.bracketDepth--;
      this.expect(")");
      return inner;
    }
    if (t.text === "[") return this.arrayTerm();
    if (t.text === "{") return this.braceTerm();
    this.fail(`unexpected ${describe(t)}`);
  }

  /**
   * A template string as OPA compiles it: `internal.template_string([parts...])`, each `{expression}` a set
   * comprehension of its values (`{v | v := expression}`), so an undefined one prints `<undefined>`.
   */
  private template(parts: TemplatePart[], loc: Location): Term {
    const items = parts.map((part): Term => {
      if (typeof part === "string") return { type: "value", value: part, loc };
      // Parsed where it stands in the module, so errors and locations point into the template.
      const before = this.source.slice(0, part.at);
      const line = before.lastIndexOf("\n");
      const padding = "\n".repeat(before.split("\n").length - 1) + " ".repeat(part.at - line - 1);
      const body = new Parser(padding + part.source, this.file).query();
      const expr = body[0]!;
      if (body.length !== 1 || expr.type !== "term" || expr.negated) this.fail("a template expression must be one term", loc);
      const v: VarTerm = { type: "var", name: "$value", loc: expr.loc };
      return { type: "setcomp", head: v, body: [{ type: "assign", left: v, right: expr.term, negated: false, with: expr.with, loc: expr.loc }], loc: expr.loc };
    });
    return call("internal.template_string", [{ type: "array", items, loc }], loc);
  }

  private arrayTerm(): Term {
    const loc = this.next().loc;
    this.bracketDepth++;
    const saved = this.noOr;
    let result: Term;
    if (this.is("]")) result = { type: "array", items: [], loc };
    else {
      this.noOr = true;
      const first = this.infix(false);
      this.noOr = false;
      if (this.accept("|")) result = { type: "arraycomp", head: first, body: this.literals("]"), loc };
      else result = { type: "array", items: this.accept(",") ? [first, ...this.list("]", false)] : [first], loc };
    }
    this.noOr = saved;
    this.bracketDepth--;
    this.expect("]");
    return result;
  }

  private braceTerm(): Term {
    const loc = this.next().loc;
    this.bracketDepth++;
    const saved = this.noOr;
    let result: Term;
    if (this.is("}")) result = { type: "object", items: [], loc };
    else {
      this.noOr = true;
      const first = this.infix(false);
      this.noOr = false;
      if (this.accept(":")) {
        this.noOr = true;
        const value = this.infix(false);
        this.noOr = false;
        if (this.accept("|")) result = { type: "objectcomp", key: first, value, body: this.literals("}"), loc };
        else {
          const items: [Term, Term][] = [[first, value]];
          while (this.accept(",")) {
            if (this.is("}")) break;
            const k = this.infix(false);
            this.expect(":");
            items.push([k, this.infix(false)]);
          }
          result = { type: "object", items, loc };
        }
      } else if (this.accept("|")) result = { type: "setcomp", head: first, body: this.literals("}"), loc };
      else result = { type: "set", items: this.accept(",") ? [first, ...this.list("}", false)] : [first], loc };
    }
    this.noOr = saved;
    this.bracketDepth--;
    this.expect("}");
    return result;
  }

  /** Comma-separated terms up to `close`; consumes `close` when `consume`. A trailing comma is fine. */
  private list(close: string, consume = true): Term[] {
    this.bracketDepth++;
    const saved = this.noOr;
    this.noOr = false;
    const items: Term[] = [];
    while (!this.is(close)) {
      items.push(this.infix(false));
      if (!this.accept(",")) break;
    }
    this.noOr = saved;
    this.bracketDepth--;
    if (consume) this.expect(close);
    else if (!this.is(close)) this.fail(`expected ',' or '${close}' but found ${describe(this.tok)}`);
    return items;
  }
}

function number(text: string, loc: Location) {
  const n = parseNumber(text);
  if (n === undefined) throw new RegoError("rego_parse_error", `invalid number '${text}'`, loc);
  return n;
}

const logicExpr = (op: "and" | "or", operands: Body[], loc: Location): Expr => ({ type: "logic", op, operands, negated: false, with: [], loc });

const call = (name: string, args: Term[], loc: Location): Term => ({
  type: "call",
  fn: { type: "var", name, loc },
  args,
  loc,
});

function extendRef(t: Term, key: Term): Term {
  if (t.type === "ref") return { ...t, path: [...t.path, key] };
  return { type: "ref", head: t, path: [key], loc: t.loc };
}

function describe(t: Token): string {
  if (t.kind === "eof") return "end of input";
  if (t.kind === "string") return "a string";
  if (t.kind === "number") return `number ${t.text}`;
  return `'${t.text}'`;
}

export function refText(ref: Term[]): string {
  return ref
    .map((t, i) => {
      if (t.type === "var") return i === 0 ? t.name : `[${t.name}]`;
      if (t.type === "value" && typeof t.value === "string") return i === 0 ? t.value : `.${t.value}`;
      return "[...]";
    })
    .join("");
}
