/** Semantic versions (semver.org 2.0.0): semver.is_valid and semver.compare. */
import { BuiltinError } from "../values/errors.ts";
import type { Value } from "../values/values.ts";
import { builtin, str } from "./builtin.ts";

const SEMVER = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;

interface Version {
  core: bigint[];
  pre: string[];
}

function parse(text: string, operand: number): Version {
  const m = SEMVER.exec(text);
  if (!m) throw new BuiltinError(`operand ${operand}: string ${JSON.stringify(text)} is not a valid SemVer`);
  return { core: [BigInt(m[1]!), BigInt(m[2]!), BigInt(m[3]!)], pre: m[4] ? m[4].split(".") : [] };
}

const sign = (n: number | bigint) => (n < 0 ? -1 : n > 0 ? 1 : 0);

/** Precedence as semver.org §11: the core numbers, then a pre-release ranks below none, then its parts. */
function compare(a: Version, b: Version): number {
  for (let i = 0; i < 3; i++) if (a.core[i] !== b.core[i]) return sign(a.core[i]! - b.core[i]!);
  if (!a.pre.length || !b.pre.length) return sign(b.pre.length - a.pre.length);
  for (let i = 0; i < Math.min(a.pre.length, b.pre.length); i++) {
    const x = a.pre[i]!;
    const y = b.pre[i]!;
    if (x === y) continue;
    const xn = /^\d+$/.test(x);
    const yn = /^\d+$/.test(y);
    if (xn && yn) return sign(BigInt(x) - BigInt(y));
    if (xn !== yn) return xn ? -1 : 1;
    return x < y ? -1 : 1;
  }
  return sign(a.pre.length - b.pre.length);
}

export const semverBuiltins = [
  builtin("semver.is_valid", 1, ([v]: Value[]) => typeof v === "string" && SEMVER.test(v)),
  builtin("semver.compare", 2, (args) => compare(parse(str(args, 0), 1), parse(str(args, 1), 2))),
];
