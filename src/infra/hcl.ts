/**
 * HCL, parsed for real: tree-sitter's HCL grammar (the Terraform dialect, from @tree-sitter-grammars/tree-sitter-hcl)
 * through web-tree-sitter, turned into a small tree of bodies, blocks, attributes and expressions that keeps every
 * line and the comments. The two wasm files are imported as files, so the compiled executable carries them.
 */
import type { Node, Parser } from "web-tree-sitter";
import runtimeWasm from "web-tree-sitter/web-tree-sitter.wasm" with { type: "file" };
import terraformWasm from "@tree-sitter-grammars/tree-sitter-hcl/tree-sitter-terraform.wasm" with { type: "file" };
import type { SyntaxIssue } from "./views.ts";

export type Expr =
  | { kind: "literal"; value: string | number | boolean | null; line: number; text: string }
  | { kind: "template"; parts: (string | Expr)[]; line: number; text: string }
  | { kind: "tuple"; items: Expr[]; line: number; text: string }
  | { kind: "object"; items: { key: Expr; value: Expr }[]; line: number; text: string }
  | { kind: "variable"; name: string; line: number; text: string }
  | { kind: "traversal"; base: Expr; steps: Step[]; line: number; text: string }
  | { kind: "call"; name: string; args: Expr[]; expand: boolean; line: number; text: string }
  | { kind: "conditional"; condition: Expr; then: Expr; otherwise: Expr; line: number; text: string }
  | { kind: "unary"; op: string; operand: Expr; line: number; text: string }
  | { kind: "binary"; op: string; left: Expr; right: Expr; line: number; text: string }
  | { kind: "for"; key?: string; value: string; collection: Expr; keyExpr?: Expr; valueExpr: Expr; condition?: Expr; object: boolean; grouped: boolean; line: number; text: string }
  /** Template directives and anything else judged by text alone. */
  | { kind: "opaque"; line: number; text: string };

export type Step = { attr: string } | { index: Expr } | { splat: true };

export interface Attribute {
  name: string;
  expr: Expr;
  line: number;
}

export interface Block {
  type: string;
  labels: string[];
  body: Body;
  /** 1-based, first and last line of the block. */
  line: number;
  endLine: number;
}

export interface Body {
  attributes: Map<string, Attribute>;
  blocks: Block[];
}

export interface Comment {
  line: number;
  text: string;
}

export interface HclFile {
  path: string;
  body: Body;
  comments: Comment[];
  /** Syntax errors, first first; the body holds what could still be read. */
  errors: SyntaxIssue[];
}

let parser: Promise<Parser> | undefined;

/**
 * The parser, loaded once per process with the first file to parse (about 100 ms: the library and two wasm
 * modules), not at start-up: a server that never reads HCL never loads it.
 */
export function hclParser(): Promise<Parser> {
  parser ??= (async () => {
    const { Language, Parser } = await import("web-tree-sitter");
    await Parser.init({ wasmBinary: new Uint8Array(await Bun.file(runtimeWasm).arrayBuffer()) });
    const language = await Language.load(new Uint8Array(await Bun.file(terraformWasm).arrayBuffer()));
    const created = new Parser();
    created.setLanguage(language);
    return created;
  })();
  return parser;
}

/** Parses `source` (the text of `path`). Never throws on bad HCL: its errors are in `errors`. */
export async function parseHcl(path: string, source: string): Promise<HclFile> {
  return parseWith(await hclParser(), path, source);
}

export function parseWith(parser: Parser, path: string, source: string): HclFile {
  const tree = parser.parse(source);
  if (!tree) return { path, body: emptyBody(), comments: [], errors: [{ line: 1, column: 1, message: "the file could not be parsed" }] };
  try {
    const root = tree.rootNode;
    // One call for every comment; the walk for errors only when there are some.
    const comments = root.descendantsOfType("comment").flatMap((node) => (node ? [{ line: lineOf(node), text: node.text }] : []));
    const errors: SyntaxIssue[] = [];
    if (root.hasError) collectErrors(root, errors);
    const body = root.namedChildren.find((child) => child?.type === "body");
    return { path, body: body ? readBody(body) : emptyBody(), comments, errors };
  } finally {
    tree.delete();
  }
}

const emptyBody = (): Body => ({ attributes: new Map(), blocks: [] });
const lineOf = (node: Node) => node.startPosition.row + 1;

function collectErrors(node: Node, errors: SyntaxIssue[]): void {
  if (node.isMissing) {
    // Found where the parser gave up (often the end of the file); the unfinished construct starts at its parent.
    const at = node.parent ?? node;
    errors.push({ line: lineOf(at), column: at.startPosition.column + 1, message: `${at.type.replace(/_/g, " ")} is not closed (missing ${node.type.replace(/_/g, " ")})` });
  } else if (node.isError) {
    errors.push({ line: lineOf(node), column: node.startPosition.column + 1, message: `unexpected ${JSON.stringify(node.text.slice(0, 40))}` });
  }
  if (!node.hasError) return;
  for (const child of node.children) if (child) collectErrors(child, errors);
}

function readBody(node: Node): Body {
  const body = emptyBody();
  for (const child of node.namedChildren) {
    if (!child) continue;
    if (child.type === "attribute") {
      const name = child.namedChildren.find((c) => c?.type === "identifier")?.text ?? "";
      const exprNode = child.namedChildren.find((c) => c?.type === "expression");
      if (exprNode) body.attributes.set(name, { name, expr: readExpr(exprNode), line: lineOf(child) });
    } else if (child.type === "block") {
      const parts = child.namedChildren.filter((c): c is Node => c !== null);
      const type = parts.find((c) => c.type === "identifier")?.text ?? "";
      const labels = parts.filter((c, i) => i > 0 && (c.type === "string_lit" || c.type === "identifier")).map(stringOf);
      const inner = parts.find((c) => c.type === "body");
      body.blocks.push({ type, labels, body: inner ? readBody(inner) : emptyBody(), line: lineOf(child), endLine: child.endPosition.row + 1 });
    }
  }
  return body;
}

/** A string_lit's text without quotes, with HCL escapes undone. */
function stringOf(node: Node): string {
  if (node.type === "identifier") return node.text;
  return node.namedChildren
    .filter((c) => c?.type === "template_literal")
    .map((c) => unescape(c!.text))
    .join("");
}

const escapes: Record<string, string> = { n: "\n", r: "\r", t: "\t", '"': '"', "\\": "\\" };
const unescape = (text: string) =>
  text
    .replace(/\\(u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|.)/g, (_, e: string) =>
      e.length > 1 ? String.fromCodePoint(parseInt(e.slice(1), 16)) : (escapes[e] ?? `\\${e}`),
    )
    .replace(/\$\$\{/g, "${")
    .replace(/%%\{/g, "%{");

function readExpr(node: Node): Expr {
  const line = lineOf(node);
  const text = node.text;
  const named = node.namedChildren.filter((c): c is Node => c !== null);
  switch (node.type) {
    case "expression":
      return readTerm(named.filter((c) => c.type !== "comment"));
    case "literal_value": {
      const literal = named[0]!;
      if (literal.type === "numeric_lit") return { kind: "literal", value: Number(literal.text), line, text };
      if (literal.type === "bool_lit") return { kind: "literal", value: literal.text === "true", line, text };
      if (literal.type === "null_lit") return { kind: "literal", value: null, line, text };
      return { kind: "literal", value: stringOf(literal), line, text };
    }
    case "template_expr":
      return readTemplate(named[0]!);
    case "collection_value": {
      const collection = named[0]!;
      if (collection.type === "tuple")
        return { kind: "tuple", items: collection.namedChildren.filter((c) => c?.type === "expression").map((c) => readExpr(c!)), line, text };
      const items = collection.namedChildren
        .filter((c) => c?.type === "object_elem")
        .map((elem) => ({ key: readExpr(elem!.childForFieldName("key")!), value: readExpr(elem!.childForFieldName("val")!) }));
      return { kind: "object", items, line, text };
    }
    case "variable_expr":
      return { kind: "variable", name: named[0]?.text ?? text, line, text };
    case "function_call": {
      const args = named.find((c) => c.type === "function_arguments");
      return {
        kind: "call",
        name: named[0]?.text ?? "",
        args: args?.namedChildren.filter((c) => c?.type === "expression").map((c) => readExpr(c!)) ?? [],
        expand: args?.children.some((c) => c?.type === "ellipsis" || c?.text === "...") ?? false,
        line,
        text,
      };
    }
    case "conditional": {
      const [condition, then, otherwise] = named.map(readExpr);
      return { kind: "conditional", condition: condition!, then: then!, otherwise: otherwise!, line, text };
    }
    case "operation":
      return readExpr(named[0]!);
    case "unary_operation": {
      const op = node.children.find((c) => c && !c.isNamed)?.text ?? "";
      return { kind: "unary", op, operand: readTerm(named.filter((c) => c.type !== "comment")), line, text };
    }
    case "binary_operation": {
      // A flat run of nodes: the left term and its postfixes, the operator, the right term and its postfixes.
      const children = node.children.filter((c): c is Node => c !== null && c.type !== "comment");
      const at = children.findIndex((c) => !c.isNamed);
      const op = children[at]?.text ?? "";
      return { kind: "binary", op, left: readTerm(children.slice(0, at)), right: readTerm(children.slice(at + 1)), line, text };
    }
    case "for_expr":
      return readFor(named[0]!, line, text);
    default:
      return { kind: "opaque", line, text };
  }
}

/** A term written as sibling nodes: a primary expression, then its attribute, index and splat steps. */
function readTerm(nodes: Node[]): Expr {
  const [primary, ...rest] = nodes;
  if (!primary) return { kind: "opaque", line: 0, text: "" };
  const base = readExpr(primary);
  if (!rest.length) return base;
  const text = nodes.map((n) => n.text).join("");
  return { kind: "traversal", base, steps: rest.flatMap(readSteps), line: base.line, text };
}

function readSteps(node: Node): Step[] {
  switch (node.type) {
    case "get_attr":
      return [{ attr: node.namedChildren.find((c) => c?.type === "identifier")?.text ?? "" }];
    case "index": {
      const inner = node.namedChildren[0];
      if (inner?.type === "new_index") return [{ index: readExpr(inner.namedChildren.find((c) => c?.type === "expression")!) }];
      const digits = inner?.text.replace(/^\./, "") ?? "0";
      return [{ index: { kind: "literal", value: Number(digits), line: lineOf(node), text: digits } }];
    }
    case "splat":
      return [{ splat: true }, ...(node.namedChildren[0]?.namedChildren.filter((c): c is Node => c !== null).flatMap(readSteps) ?? [])];
    default:
      return [];
  }
}

function readTemplate(node: Node): Expr {
  const line = lineOf(node);
  if (node.type === "heredoc_template") return { kind: "template", parts: heredocParts(node), line, text: node.text };
  const parts: (string | Expr)[] = [];
  for (const child of node.namedChildren) {
    if (!child) continue;
    if (child.type === "template_literal") parts.push(unescape(child.text));
    else if (child.type === "template_interpolation") {
      const inner = child.namedChildren.find((c) => c?.type === "expression");
      if (inner) parts.push(readExpr(inner));
    } else if (child.type === "template_directive") parts.push({ kind: "opaque", line: lineOf(child), text: child.text });
  }
  return { kind: "template", parts, line, text: node.text };
}

/**
 * A heredoc's parts, read from its source: the text runs from the line after the opening marker to the start of
 * the closing marker's line (its last newline included), with interpolations in between. The grammar's literal
 * nodes leave out leading whitespace, which a heredoc keeps; `<<-` then removes the common indentation.
 */
function heredocParts(node: Node): (string | Expr)[] {
  const whole = node.text;
  const base = node.startIndex;
  const markers = node.namedChildren.filter((c): c is Node => c?.type === "heredoc_identifier");
  const start = whole.indexOf("\n", (markers[0]?.endIndex ?? base) - base) + 1;
  const closing = markers.length > 1 ? markers.at(-1)!.startIndex - base : whole.length;
  const end = whole.lastIndexOf("\n", closing - 1) + 1;
  const parts: (string | Expr)[] = [];
  let at = start;
  for (const child of node.namedChildren) {
    if (!child || (child.type !== "template_interpolation" && child.type !== "template_directive")) continue;
    const from = child.startIndex - base;
    if (from < start || from >= end) continue;
    if (from > at) parts.push(whole.slice(at, from));
    const inner = child.namedChildren.find((c) => c?.type === "expression");
    parts.push(child.type === "template_interpolation" && inner ? readExpr(inner) : { kind: "opaque", line: lineOf(child), text: child.text });
    at = child.endIndex - base;
  }
  if (end > at) parts.push(whole.slice(at, end));
  if (node.namedChildren.some((c) => c?.type === "heredoc_start" && c.text.startsWith("<<-"))) dedent(parts);
  return parts;
}

/** `<<-` heredocs: the smallest indentation of the non-blank lines is removed from each line. */
function dedent(parts: (string | Expr)[]): void {
  const literal = parts.filter((p): p is string => typeof p === "string").join("");
  const indents = literal.split("\n").filter((l) => l.trim()).map((l) => /^[ \t]*/.exec(l)![0].length);
  const width = indents.length ? Math.min(...indents) : 0;
  if (!width) return;
  // A part after an interpolation starts mid-line: only its later lines are indented.
  const lineStart = new RegExp(`(^|\\n)[ \\t]{0,${width}}`, "g");
  const laterLine = new RegExp(`(\\n)[ \\t]{0,${width}}`, "g");
  for (let i = 0; i < parts.length; i++)
    if (typeof parts[i] === "string") parts[i] = (parts[i] as string).replace(i === 0 ? lineStart : laterLine, "$1");
}

function readFor(node: Node, line: number, text: string): Expr {
  const intro = node.namedChildren.find((c) => c?.type === "for_intro")!;
  const names = intro.namedChildren.filter((c) => c?.type === "identifier").map((c) => c!.text);
  const collection = readExpr(intro.namedChildren.find((c) => c?.type === "expression")!);
  const exprs = node.namedChildren.filter((c) => c?.type === "expression").map((c) => readExpr(c!));
  const conditionNode = node.namedChildren.find((c) => c?.type === "for_cond")?.namedChildren.find((c) => c?.type === "expression");
  const object = node.type === "for_object_expr";
  const [key, value] = names.length === 2 ? names : [undefined, names[0]!];
  return {
    kind: "for",
    key,
    value: value!,
    collection,
    keyExpr: object ? exprs[0] : undefined,
    valueExpr: object ? exprs[1]! : exprs[0]!,
    condition: conditionNode ? readExpr(conditionNode) : undefined,
    object,
    grouped: node.children.some((c) => c?.type === "ellipsis"),
    line,
    text,
  };
}
