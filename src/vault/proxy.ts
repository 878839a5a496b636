/**
 * One HTTP call on a service's behalf: the URL built from the service's base and the agent's path, the address
 * checked, the credential injected, same-host redirects followed (others handed back unfollowed), the response
 * streamed through the sanitizer under a size cap.
 */
import { VaultError } from "./errors.ts";
import { agentHeaders, assertAllowed, assertPublicAddress, targetUrl } from "./egress.ts";
import { inject, ownedHeaders } from "./inject.ts";
import type { ApiCallInput, ApiCallResult, Credential, ServiceSettings } from "./model.ts";
import type { Sanitizer } from "./sanitizer.ts";

const maxRedirects = 5;
const hopByHop = new Set(["connection", "keep-alive", "transfer-encoding", "upgrade", "proxy-authenticate", "te", "trailer", "content-length", "content-encoding"]);
const textual = /^(text\/|application\/([\w.+-]*json|[\w.+-]*xml|javascript|x-www-form-urlencoded|yaml|x-yaml))/i;

export interface ProxyOptions {
  settings: ServiceSettings;
  credential: Credential;
  sanitizer: Sanitizer;
  maxRequestBytes: number;
  signal?: AbortSignal;
}

export async function proxyCall(input: ApiCallInput, { settings, credential, sanitizer, maxRequestBytes, signal }: ProxyOptions): Promise<ApiCallResult> {
  if (input.body !== undefined && Buffer.byteLength(input.body) > maxRequestBytes)
    throw new VaultError("REQUEST_TOO_LARGE", `request body exceeds ${maxRequestBytes} bytes`);
  let url = targetUrl(settings, input.path, input.query);
  assertAllowed(settings, input.method, input.path);
  const headers = { ...settings.headers, ...agentHeaders(input.headers, ownedHeaders(settings.injection)) };
  let method: string = input.method;
  let body = input.body;
  const deadline = AbortSignal.timeout(settings.timeout_ms);
  const aborted = signal ? AbortSignal.any([deadline, signal]) : deadline;

  for (let hop = 0; ; hop++) {
    await assertPublicAddress(url.hostname, settings.allow_addresses);
    const outgoing = await inject({ method, url, headers, body }, settings.injection, credential);
    const response = await send(outgoing, aborted, deadline);
    const location = response.headers.get("location");
    if (response.status >= 300 && response.status < 400 && location && hop < maxRedirects) {
      const next = new URL(location, url);
      // The credential goes only to the service's own origin; a redirect elsewhere is handed back unfollowed.
      if (next.origin === new URL(settings.base_url).origin) {
        await response.body?.cancel();
        assertAllowed(settings, method === "HEAD" ? "HEAD" : response.status === 303 ? "GET" : method, next.pathname);
        if (response.status === 303 || ((response.status === 301 || response.status === 302) && method === "POST")) {
          method = "GET";
          body = undefined;
        }
        url = next;
        continue;
      }
    }
    return await answer(response, sanitizer, settings.max_response_bytes, aborted, deadline);
  }
}

async function send(request: Awaited<ReturnType<typeof inject>>, signal: AbortSignal, deadline: AbortSignal): Promise<Response> {
  try {
    return await fetch(request.url, {
      method: request.method,
      headers: request.headers,
      body: request.body,
      redirect: "manual",
      signal,
    } as RequestInit);
  } catch (error) {
    throw upstreamFailure(error, deadline);
  }
}

async function answer(response: Response, sanitizer: Sanitizer, cap: number, signal: AbortSignal, deadline: AbortSignal): Promise<ApiCallResult> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    if (!hopByHop.has(name)) headers[name] = sanitizer.text(value).text;
  });
  const redactor = sanitizer.redactor();
  const parts: Uint8Array[] = [];
  let received = 0;
  try {
    if (response.body) {
      for await (const chunk of response.body) {
        received += chunk.byteLength;
        if (received > cap) {
          await response.body.cancel().catch(() => {});
          throw new VaultError("RESPONSE_TOO_LARGE", `the response exceeds this service's cap of ${cap} bytes`);
        }
        parts.push(redactor.push(chunk));
        if (signal.aborted) throw signal.reason;
      }
    }
  } catch (error) {
    if (error instanceof VaultError) throw error;
    throw upstreamFailure(error, deadline);
  }
  parts.push(redactor.end());
  const bytes = Buffer.concat(parts);
  const contentType = response.headers.get("content-type") ?? "";
  const asText = textual.test(contentType) || (!contentType && isUtf8(bytes));
  return { status: response.status, headers, body: bytes.toString(asText ? "utf8" : "base64"), bodyEncoding: asText ? "utf8" : "base64" };
}

function upstreamFailure(error: unknown, deadline: AbortSignal): VaultError {
  if (deadline.aborted) return new VaultError("UPSTREAM_TIMEOUT", "the service did not answer in time");
  const name = (error as Error)?.name;
  if (name === "AbortError") return new VaultError("UPSTREAM_UNREACHABLE", "the call was cancelled");
  return new VaultError("UPSTREAM_UNREACHABLE", `the service could not be reached or reset the connection (${(error as { code?: string }).code ?? name ?? "error"})`);
}

function isUtf8(bytes: Buffer): boolean {
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}
