/**
 * Providers: providers.aws.sign_req signs a request object (method, url, headers, body or raw_body) with
 * AWS Signature Version 4 at a given time, as OPA does; it sends nothing.
 */
import { createHash, createHmac } from "node:crypto";
import { BuiltinError } from "../values/errors.ts";
import { isNumber, RObject, toJSON, type Value } from "../values/values.ts";
import { isInteger, toBigInt } from "../values/numbers.ts";
import { builtin, obj } from "./builtin.ts";
import { checkRequest, setText } from "./http.ts";

const CONFIG_KEYS = ["aws_access_key", "aws_region", "aws_secret_access_key", "aws_service"];
const IGNORED_HEADERS = new Set(["authorization", "user-agent", "x-amzn-trace-id"]);


const sha256 = (data: string | Buffer) => createHash("sha256").update(data).digest("hex");
const hmac = (key: string | Buffer, data: string) => createHmac("sha256", key).update(data).digest();

function signRequest(request: RObject, config: RObject, timeNs: Value): RObject {
  const missingConfig = CONFIG_KEYS.filter((k) => config.get(k) === undefined);
  if (missingConfig.length) throw new BuiltinError(`operand 2 missing required AWS config parameters(s): ${setText(missingConfig)}`, "type");
  const badConfig = CONFIG_KEYS.filter((k) => typeof config.get(k) !== "string");
  if (badConfig.length) throw new BuiltinError(`operand 2 invalid values for required AWS config parameters(s): ${setText(badConfig)}`, "type");
  const configText = (k: string) => config.get(k) as string;
  if (!isNumber(timeNs) || !isInteger(timeNs)) throw new BuiltinError("operand 3 could not convert time_ns value into a unix timestamp", "type");
  checkRequest(request, 1);
  const invalid = ["method", "url"].filter((k) => typeof request.get(k) !== "string");
  if (invalid.length) throw new BuiltinError(`operand 1 invalid values for required request parameters(s): ${setText(invalid)}`, "type");
  const headersValue = request.get("headers") ?? new RObject();
  if (!(headersValue instanceof RObject)) throw new BuiltinError("operand 0 must be object", "type");
  const signPayload = config.get("disable_payload_signing");
  if (signPayload !== undefined && typeof signPayload !== "boolean") throw new BuiltinError("operand 2 invalid value for 'disable_payload_signing' in AWS config", "type");

  let url: URL;
  try {
    url = new URL(request.get("url") as string);
  } catch (e) {
    throw new BuiltinError((e as Error).message);
  }
  const method = request.get("method") as string;
  const rawBody = request.get("raw_body");
  const body = request.get("body");
  const payload = rawBody !== undefined ? (typeof rawBody === "string" ? rawBody : "") : body !== undefined ? toJSON(body) : "";
  const contentSha256 = signPayload === true ? "UNSIGNED-PAYLOAD" : sha256(payload);

  const ms = Number(toBigInt(timeNs) / 1_000_000n);
  const iso = new Date(ms).toISOString().replace(/[-:]/g, "").replace(/\.\d{3}/, "");
  const date = iso.slice(0, 8);
  const service = configText("aws_service");
  const region = configText("aws_region");
  const aws: Record<string, string> = { host: url.host, "x-amz-date": iso };
  if (service === "s3" || service === "glacier") aws["x-amz-content-sha256"] = contentSha256;
  const token = config.get("aws_session_token");
  if (typeof token === "string" && token) aws["x-amz-security-token"] = token;

  const given = headersValue.entries().map(([k, v]) => [String(k), typeof v === "string" ? v : ""] as const);
  const toSign: Record<string, string> = { ...aws };
  for (const [k, v] of given) if (!IGNORED_HEADERS.has(k.toLowerCase())) toSign[k.toLowerCase()] = v;
  const ordered = Object.keys(toSign).sort();
  // The path as written (Go's EscapedPath): "" for "http://example.com", where URL.pathname says "/".
  const path = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*([^?#]*)/i.exec(request.get("url") as string)?.[1] ?? url.pathname;
  const canonical = [method, path, url.search.slice(1), ...ordered.map((k) => `${k}:${toSign[k]}`), "", ordered.join(";"), contentSha256].join("\n");
  const scope = `${date}/${region}/${service}/aws4_request`;
  const stringToSign = `AWS4-HMAC-SHA256\n${iso}\n${scope}\n${sha256(canonical)}`;
  let key = hmac(`AWS4${configText("aws_secret_access_key")}`, date);
  for (const part of [region, service, "aws4_request"]) key = hmac(key, part);
  const signature = hmac(key, stringToSign).toString("hex");
  const authorization = `AWS4-HMAC-SHA256 Credential=${configText("aws_access_key")}/${scope},SignedHeaders=${ordered.join(";")},Signature=${signature}`;

  const headers = RObject.of([...given.map(([k, v]): [Value, Value] => [k, v]), ["Authorization", authorization], ...Object.entries(aws)]);
  const out = request.copy();
  out.set("headers", headers);
  return out;
}

export const providerBuiltins = [builtin("providers.aws.sign_req", 3, (args) => signRequest(obj(args, 0), obj(args, 1), args[2]!))];

