/**
 * Hard-coded secrets in HCL: a literal string under a name that means a secret (password, secret, token, private
 * key, access key), or a value shaped like a known credential (AWS access key ids, private key blocks, GitHub and
 * Slack tokens) anywhere. Interpolations, references and empty strings are not secrets.
 */
import type { Body, Expr, HclFile } from "./hcl.ts";

export interface SecretFinding {
  file: string;
  line: number;
  /** The attribute path, e.g. `resource.aws_db_instance.main.password`. */
  where: string;
  kind: string;
}

const secretName = /(^|_)(password|passwd|secret|secret_key|access_key|private_key|token|api_key|client_secret|auth_token|connection_string)$/i;
const notSecret = /(_arn|_id|_name|_length|_version|_policy|_type|_enabled|_rotation.*|_ttl)$/i;
const shapes: [RegExp, string][] = [
  [/\b(AKIA|ASIA)[0-9A-Z]{16}\b/, "AWS access key id"],
  [/-----BEGIN ((RSA|EC|OPENSSH|DSA) )?PRIVATE KEY-----/, "private key"],
  [/\bgh[pousr]_[A-Za-z0-9]{36,}\b/, "GitHub token"],
  [/\bxox[baprs]-[A-Za-z0-9-]{10,}\b/, "Slack token"],
];

export function findSecrets(file: HclFile): SecretFinding[] {
  const found: SecretFinding[] = [];
  const visitBody = (body: Body, path: string) => {
    for (const [name, attribute] of body.attributes) visitExpr(attribute.expr, `${path}.${name}`, name);
    for (const block of body.blocks) {
      // A variable's default is where a secret most often hides.
      if (block.type === "variable") {
        const fallback = block.body.attributes.get("default")?.expr;
        if (fallback) visitExpr(fallback, `variable.${block.labels[0]}.default`, block.labels[0] ?? "");
        continue;
      }
      visitBody(block.body, [path, block.type, ...block.labels].filter(Boolean).join("."));
    }
  };
  const visitExpr = (expr: Expr, where: string, name: string) => {
    if (expr.kind === "object") {
      for (const item of expr.items) visitExpr(item.value, `${where}.${item.key.text.replace(/"/g, "")}`, item.key.text.replace(/"/g, ""));
      return;
    }
    if (expr.kind === "tuple") return expr.items.forEach((item) => visitExpr(item, where, name));
    const text = plainString(expr);
    if (text === undefined || !text) return;
    const shape = shapes.find(([pattern]) => pattern.test(text));
    if (shape) found.push({ file: file.path, line: expr.line, where, kind: shape[1] });
    else if (secretName.test(name) && !notSecret.test(name) && text.length >= 4) found.push({ file: file.path, line: expr.line, where, kind: `literal ${name}` });
  };
  visitBody(file.body, "");
  return found.map((f) => ({ ...f, where: f.where.replace(/^\./, "") }));
}

/** A string with no interpolation in it. */
function plainString(expr: Expr): string | undefined {
  if (expr.kind === "literal" && typeof expr.value === "string") return expr.value;
  if (expr.kind === "template" && expr.parts.every((p) => typeof p === "string")) return expr.parts.join("");
  return undefined;
}
