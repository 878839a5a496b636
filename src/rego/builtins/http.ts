/**
 * HTTP: http.send is declared, so that a policy using it compiles and `with http.send as mock` replaces it
 * (OPA's way to test such policies), but a decision here does no I/O: the request is checked as OPA checks
 * it, then refused with an error.
 */
import { BuiltinError } from "../values/errors.ts";
import type { RObject } from "../values/values.ts";
import { builtin, obj } from "./builtin.ts";

const REQUEST_KEYS = new Set([
  "method", "url", "body", "enable_redirect", "force_json_decode", "force_yaml_decode", "headers", "raw_body", "tls_use_system_certs",
  "tls_ca_cert", "tls_ca_cert_file", "tls_ca_cert_env_variable", "tls_client_cert", "tls_client_cert_file", "tls_client_cert_env_variable",
  "tls_client_key", "tls_client_key_file", "tls_client_key_env_variable", "tls_insecure_skip_verify", "tls_server_name", "timeout", "cache",
  "force_cache", "force_cache_duration_seconds", "raise_error", "caching_mode", "max_retry_attempts", "cache_ignored_headers",
]);

/** Names as OPA prints a set of strings in a message: `{"a", "b"}`. */
export const setText = (names: string[]) => `{${names.sort().map((n) => JSON.stringify(n)).join(", ")}}`;

/** A request object's keys as OPA checks them: known ones only, method and url present. */
export function checkRequest(request: RObject, operand: number): void {
  const keys = request.entries().map(([k]) => String(k));
  const unknown = keys.filter((k) => !REQUEST_KEYS.has(k));
  if (unknown.length) throw new BuiltinError(`operand ${operand} invalid request parameters(s): ${setText(unknown)}`, "type");
  const missing = ["method", "url"].filter((k) => request.get(k) === undefined);
  if (missing.length) throw new BuiltinError(`operand ${operand} missing required request parameters(s): ${setText(missing)}`, "type");
}

export const httpBuiltins = [
  builtin("http.send", 1, (args) => {
    checkRequest(obj(args, 0), 1);
    throw new BuiltinError("not available: a decision makes no network requests (replace it with `with http.send as ...`)");
  }),
];
