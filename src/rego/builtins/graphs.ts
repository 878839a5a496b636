/** Graphs: walk over a document, reachability over an adjacency object (graph.reachable, reachable_paths). */
import { iterate, RObject, RSet, type Value } from "../values/values.ts";
import { builtin, obj, oneOfError, relation } from "./builtin.ts";

/** Every [path, value] pair of a document, the document itself first, in Rego's order. */
function walk(v: Value, path: Value[], out: Value[]): void {
  out.push([path.slice(), v]);
  iterate(v, (k, x) => {
    path.push(k);
    walk(x, path, out);
    path.pop();
    return false;
  });
}

/** A node's neighbours: an array or set of node names; anything else has none. */
const edges = (graph: RObject, node: Value): Value[] => {
  const next = graph.get(node);
  return Array.isArray(next) ? next : next instanceof RSet ? next.values() : [];
};

function startNodes(args: Value[], i: number): Value[] {
  const v = args[i]!;
  if (Array.isArray(v)) return v;
  if (v instanceof RSet) return v.values();
  throw oneOfError(i, v, "set", "array");
}

function reachable(graph: RObject, from: Value[]): RSet {
  const seen = new RSet();
  const queue = from.filter((n) => graph.get(n) !== undefined);
  while (queue.length) {
    const n = queue.shift()!;
    if (seen.has(n)) continue;
    seen.add(n);
    for (const m of edges(graph, n)) if (!seen.has(m) && graph.get(m) !== undefined) queue.push(m);
  }
  return seen;
}

/** Every path from a start node that ends where it can go no further (a leaf, or a node already on the path). */
function reachablePaths(graph: RObject, from: Value[]): RSet {
  const paths = new RSet();
  const extend = (path: Value[]) => {
    const last = path[path.length - 1]!;
    const next = edges(graph, last).filter((m) => graph.get(m) !== undefined && !path.some((p) => keyEq(p, m)));
    if (!next.length) paths.add(path);
    for (const m of next) extend([...path, m]);
  };
  for (const n of from) if (graph.get(n) !== undefined) extend([n]);
  return paths;
}

const keyEq = (a: Value, b: Value) => RSet.of([a]).has(b);

export const graphBuiltins = [
  relation("walk", 1, ([v]) => {
    const out: Value[] = [];
    walk(v!, [], out);
    return out;
  }),
  builtin("graph.reachable", 2, (args) => reachable(obj(args, 0), startNodes(args, 1))),
  builtin("graph.reachable_paths", 2, (args) => reachablePaths(obj(args, 0), startNodes(args, 1))),
];
