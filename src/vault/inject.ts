/**
 * Puts a credential into an outgoing request at the transport layer, by the service's injection method, and
 * lists which values of a credential are secret (so the sanitizer knows what to remove).
 */
import { VaultError } from "./errors.ts";
import type { Credential, Injection } from "./model.ts";
import type { CredentialField } from "./templates.ts";

export interface OutgoingRequest {
  method: string;
  url: URL;
  headers: Record<string, string>;
  body?: string;
}

/** The header names an injection method sets, which an agent may therefore not supply. */
export function ownedHeaders(injection: Injection): string[] {
  if (injection.type === "header") return [injection.name];
  if (injection.type === "aws_sigv4") return ["x-amz-date", "x-amz-content-sha256", "x-amz-security-token"];
  return [];
}

export async function inject(request: OutgoingRequest, injection: Injection, credential: Credential): Promise<OutgoingRequest> {
  const field = (name: string) => {
    const value = credential[name];
    if (value === undefined) throw VaultError.invalid(`the stored credential lacks ${name}`);
    return value;
  };
  const headers = { ...request.headers };
  switch (injection.type) {
    case "bearer":
      headers.authorization = `Bearer ${field("token")}`;
      return { ...request, headers };
    case "basic":
      headers.authorization = `Basic ${Buffer.from(`${field("username")}:${field("password")}`).toString("base64")}`;
      return { ...request, headers };
    case "header":
      headers[injection.name.toLowerCase()] = `${injection.prefix ?? ""}${field("token")}`;
      return { ...request, headers };
    case "query": {
      const url = new URL(request.url);
      url.searchParams.set(injection.name, field("token"));
      return { ...request, url };
    }
    case "aws_sigv4": {
      // Loaded for the first signed request: most platforms hold no AWS credential.
      const { AwsV4Signer } = await import("aws4fetch");
      const signer = new AwsV4Signer({
        url: request.url.href,
        method: request.method,
        headers,
        body: request.body,
        accessKeyId: field("access_key_id"),
        secretAccessKey: field("secret_access_key"),
        sessionToken: credential.session_token || undefined,
        region: injection.region,
        service: injection.service,
      });
      const signed = await signer.sign();
      return { ...request, url: new URL(signed.url), headers: Object.fromEntries(signed.headers) };
    }
    case "connection_string":
    case "ssh_key":
      throw new VaultError("NOT_ALLOWED", "this service's credential is used by commands (exec), not by HTTP calls");
  }
}

/** The credential's secret values, plus forms derived from them that travel on the wire. */
export function secretValues(fields: CredentialField[], credential: Credential): string[] {
  const values: string[] = [];
  for (const field of fields) {
    const value = credential[field.name];
    if (value && field.secret) values.push(value);
  }
  if (credential.username && credential.password) values.push(`${credential.username}:${credential.password}`);
  if (credential.url) {
    try {
      const password = decodeURIComponent(new URL(credential.url).password);
      if (password) values.push(password);
    } catch {
      // Not a URL: the whole value is already listed.
    }
  }
  return values;
}
