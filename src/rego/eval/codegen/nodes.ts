import type { AnswerCode, CompiledRule, DocNode, FunctionCode, NodeCode, RuleCode } from "../../plan/tree.ts";
import type { Run } from "../evaluator.ts";
import type { Value } from "../../values/values.ts";
import { CONTEXT, inlineRule } from "./rule.ts";
import { Constants } from "./source.ts";


type CodeOf = (r: CompiledRule) => RuleCode;
type DefaultValue = (run: Run, r: CompiledRule) => Value | undefined;

/**
 * A node of complete rules as one function: its memo checked and stamped, its rules in order, then its
 * default. Each rule's code is a block of this function; `closures` serves a rule the generator leaves out.
 */
export function generateNode(node: DocNode, root: DocNode, closures: CodeOf, defaultValue: DefaultValue): NodeCode {
  const c = new Constants();
  const n = c.name(node);
  return c.make<NodeCode>(
    [
      `const memo = ${n}.memo, args = [];`,
      `return function node(run) {`,
      `const ${CONTEXT};`,
      `if (memo.ctx === CTX) {`,
      `if (memo.computing) throw recursion(${n});`,
      `return memo.value;`,
      `}`,
      `memo.ctx = CTX;`,
      `memo.computing = true;`,
      `let prior, loc;`,
      ...node.complete.map((r, i) => ruleBlock(c, r, `loc = ${c.name(r.loc)};\nrun.enter(loc);\n${ruleCode(c, r, i, root, closures)}\nrun.depth--;`)),
      defaultCall(c, node, defaultValue),
      // A `with` below may have stamped the node for its own context meanwhile: stamp it again.
      `memo.ctx = CTX;`,
      `memo.computing = false;`,
      `memo.value = prior;`,
      `return prior;`,
      `};`,
    ].join("\n"),
  );
}

/** A function's definitions as one function, each a block of it, in order, then its default. */
export function generateFunction(node: DocNode, root: DocNode, closures: CodeOf, defaultValue: DefaultValue): FunctionCode {
  const c = new Constants();
  return c.make<FunctionCode>(
    [
      `return function call(run, args, loc) {`,
      `const ${CONTEXT};`,
      `run.enter(loc);`,
      `let prior;`,
      ...node.functions.map((r, i) => ruleBlock(c, r, ruleCode(c, r, i, root, closures))),
      defaultCall(c, node, defaultValue),
      `run.depth--;`,
      `return prior;`,
      `};`,
    ].join("\n"),
  );
}

/** The i-th rule's code: its generated block, or a call of its closures. */
function ruleCode(c: Constants, r: CompiledRule, i: number, root: DocNode, closures: CodeOf): string {
  return inlineRule(r, root, c, `R${i}`) ?? `prior = ${c.name(closures(r))}(run, prior, args, loc, undefined);`;
}

/** A rule whose every branch has the value already found is skipped: it cannot conflict. */
function ruleBlock(c: Constants, r: CompiledRule, code: string): string {
  if (r.constants.some((v) => v === undefined)) return `{\n${code}\n}`;
  const skip = r.constants.length === 1 ? `equal(prior, ${c.name(r.constants[0])})` : `allEqual(${c.name(r.constants)}, prior)`;
  return `if (prior === undefined || !${skip}) {\n${code}\n}`;
}

function defaultCall(c: Constants, node: DocNode, defaultValue: DefaultValue): string {
  const d = node.defaultRule;
  if (!d) return "";
  const value = d.constants[0] !== undefined ? c.name(d.constants[0]) : `${c.name(defaultValue)}(run, ${c.name(d)})`;
  return `if (prior === undefined) prior = ${value};`;
}

/** A package's answer as plain JS, given the base data under it. */

/**
 * A package's answer as one function: the base data's entries and the rule children's values merged in
 * key order (both are sorted), a rule's value over the data's. Each child's value is read by a call with
 * one target; a function child has no value in a document.
 */
export function generateAnswer(node: DocNode): AnswerCode {
  const c = new Constants();
  const lines = node.ruleChildren.map((child) => {
    const n = c.name(child);
    const key = c.name(child.key);
    const value = child.isFunction ? "undefined" : child.complete.length || child.defaultRule ? `${n}.code !== undefined ? ${n}.code(run) : docValue(run, ${n}, undefined)` : `docValue(run, ${n}, own)`;
    return [
      `for (own = undefined; b < entries.length; b++) {`,
      `order = keyOrder(entries[b][0], ${key});`,
      `if (order > 0) break;`,
      `if (order === 0) { own = entries[b++][1]; break; }`,
      `put(out, entries[b][0], entries[b][1]);`,
      `}`,
      `v = ${value};`,
      `if (v !== undefined) put(out, ${key}, v);`,
      `else if (own !== undefined) put(out, ${key}, own);`,
    ].join("\n");
  });
  return c.make<AnswerCode>(
    [
      `return function answer(run, base) {`,
      `const out = {}, entries = base === undefined ? NO_MEMBERS : base.entries();`,
      `let b = 0, own, order, v;`,
      ...lines,
      `for (; b < entries.length; b++) put(out, entries[b][0], entries[b][1]);`,
      `return out;`,
      `};`,
    ].join("\n"),
  );
}

