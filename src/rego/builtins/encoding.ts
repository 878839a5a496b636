import { BuiltinError } from "../errors.ts";
import { fromJS, toJSON } from "../values.ts";
import { builtin, str } from "./builtin.ts";

function parseJSON(text: string) {
  try {
    return fromJS(JSON.parse(text));
  } catch (e) {
    throw new BuiltinError(e instanceof Error ? e.message : String(e));
  }
}

function isValidYAML(text: string): boolean {
  try {
    Bun.YAML.parse(text);
    return true;
  } catch {
    return false;
  }
}

const decodeBase64 = (s: string, url: boolean) => {
  const pattern = url ? /^[A-Za-z0-9_-]*={0,2}$/ : /^[A-Za-z0-9+/]*={0,2}$/;
  if (!pattern.test(s) || (!url && s.length % 4 !== 0)) throw new BuiltinError("illegal base64 data");
  return Buffer.from(s, url ? "base64url" : "base64").toString("utf8");
};

export const encodingBuiltins = [
  builtin("json.marshal", 1, ([v]) => toJSON(v!)),
  builtin("json.unmarshal", 1, (args) => parseJSON(str(args, 0))),
  builtin("json.is_valid", 1, ([v]) => {
    if (typeof v !== "string") return false;
    try {
      JSON.parse(v);
      return true;
    } catch {
      return false;
    }
  }),
  builtin("yaml.is_valid", 1, ([v]) => typeof v === "string" && isValidYAML(v)),
  builtin("base64.encode", 1, (args) => Buffer.from(str(args, 0), "utf8").toString("base64")),
  builtin("base64.decode", 1, (args) => decodeBase64(str(args, 0), false)),
  builtin("base64url.encode", 1, (args) => Buffer.from(str(args, 0), "utf8").toString("base64url")),
  builtin("base64url.decode", 1, (args) => decodeBase64(str(args, 0), true)),
];
