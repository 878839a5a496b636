/** A running runtime with the vault, in a temp data dir, plus stand-in upstreams speaking the services' wire formats. */
import { createHash, createHmac } from "node:crypto";
import type { Server } from "bun";
import type { Logger } from "../../src/log.ts";
import { vaultCapability, type VaultCapability } from "../../src/vault/capability.ts";
import { startApp, type RunningApp } from "../support/app.ts";

export const githubToken = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8";

export interface Harness extends RunningApp {
  capability: VaultCapability;
}

export async function startVault(env: Record<string, string> = {}, log?: Logger): Promise<Harness> {
  const running = await startApp([vaultCapability], { env: { PLATFORM_VAULT__SETUP_PORT: "0", ...env }, log });
  return { ...running, capability: running.runtime.capabilities.find((c) => c.name === "vault") as VaultCapability };
}

/** A GitHub-like API: `GET /user` with `Authorization: Bearer`, plus routes that misbehave on purpose. */
export function githubUpstream(token = githubToken): Server<undefined> & { seen: { url: string; authorization: string | null }[] } {
  const seen: { url: string; authorization: string | null }[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      seen.push({ url: request.url, authorization: request.headers.get("authorization") });
      const url = new URL(request.url);
      if (request.headers.get("authorization") !== `Bearer ${token}`)
        return Response.json({ message: "Bad credentials", documentation_url: "https://docs.github.com/rest" }, { status: 401 });
      switch (url.pathname) {
        case "/user":
          return Response.json({ login: "octocat", id: 1 }, { headers: { "x-oauth-scopes": "repo" } });
        case "/echo": {
          // The credential comes back in every encoding, split across many small chunks.
          const text = JSON.stringify({
            raw: token,
            base64: Buffer.from(token).toString("base64"),
            base64url: Buffer.from(`x${token}`).toString("base64url"),
            url: encodeURIComponent(`${token}/&`),
            hex: Buffer.from(token).toString("hex"),
            header: request.headers.get("authorization"),
          });
          const bytes = new TextEncoder().encode(text);
          return new Response(
            new ReadableStream({
              start(controller) {
                for (let i = 0; i < bytes.length; i += 5) controller.enqueue(bytes.subarray(i, i + 5));
                controller.close();
              },
            }),
            { headers: { "content-type": "application/json", "x-echo": token } },
          );
        }
        case "/escaped": {
          // The credential in every escaped form the sanitizer promises to read, in 3-byte chunks.
          // Written out by hand: JSON.stringify would escape the backslashes of the \u form.
          const bytes = new TextEncoder().encode(`{"forms":[${escapedForms(token).map((form) => `"${form}"`).join(",")}]}`);
          return new Response(
            new ReadableStream({
              start(controller) {
                for (let i = 0; i < bytes.length; i += 3) controller.enqueue(bytes.subarray(i, i + 3));
                controller.close();
              },
            }),
            { headers: { "content-type": "application/json", "x-escaped": escapedForms(token)[0]! } },
          );
        }
        case "/big":
          return new Response("x".repeat(64 * 1024), { headers: { "content-type": "text/plain" } });
        case "/slow":
          return new Promise<Response>(() => {}); // never answers
        case "/moved":
          return Response.redirect(`${url.origin}/user`, 302);
        case "/away":
          return Response.redirect(url.searchParams.get("to")!, 302);
        case "/repos/a/b":
          return Response.json({ full_name: "a/b" }, { status: request.method === "DELETE" ? 204 : 200 });
      }
      return Response.json({ message: "Not Found" }, { status: 404 });
    },
    error() {
      return new Response(null, { status: 500 });
    },
  });
  return Object.assign(server, { seen });
}

const hex = (byte: number) => byte.toString(16).padStart(2, "0");

/**
 * A value in each escaped form docs/vault.md says the sanitizer removes: every byte percent-encoded (both cases,
 * and a mixture), JSON \u escapes, HTML character references (decimal, hex, named), percent-encoded base64, and
 * base64 of a document holding its base64.
 */
export function escapedForms(value: string): string[] {
  const bytes = [...Buffer.from(value)];
  return [
    bytes.map((b) => `%${hex(b)}`).join(""),
    bytes.map((b) => `%${hex(b).toUpperCase()}`).join(""),
    bytes.map((b, i) => (i % 2 ? `%${hex(b)}` : String.fromCharCode(b))).join(""),
    bytes.map((b) => `\\u${hex(b).padStart(4, "0")}`).join(""),
    bytes.map((b, i) => (i % 3 === 0 ? `&#${b};` : i % 3 === 1 ? `&#x${hex(b)};` : String.fromCharCode(b))).join(""),
    Buffer.from(value).toString("base64").replace(/[A-Za-z0-9]/g, (c) => `%${hex(c.charCodeAt(0))}`),
    Buffer.from(JSON.stringify({ data: Buffer.from(value).toString("base64") })).toString("base64"),
  ];
}

/** Undoes every escape the sanitizer reads and every base64 run, so what is left can be searched for a value. */
export function decodedEverything(text: string): string {
  let out = text;
  // Twice: a form written inside JSON inside JSON carries its escapes escaped once more.
  for (let round = 0; round < 2; round++)
    out = out
      .replace(/\\\\/g, "\\")
      .replace(/%([0-9a-f]{2})/gi, (_, h: string) => String.fromCharCode(parseInt(h, 16)))
      .replace(/\\u([0-9a-f]{4})/gi, (_, h: string) => String.fromCharCode(parseInt(h, 16)))
      .replace(/&#x([0-9a-f]+);/gi, (_, h: string) => String.fromCharCode(parseInt(h, 16)))
      .replace(/&#(\d+);/g, (_, d: string) => String.fromCharCode(Number(d)));
  // Base64 of base64 takes two rounds; each reads every long run at each of its four alignments.
  for (let round = 0; round < 2; round++)
    for (const run of out.match(/[A-Za-z0-9+/=_-]{16,}/g) ?? [])
      for (let cut = 0; cut < 4; cut++) out += ` ${Buffer.from(run.slice(cut), "base64").toString("latin1")}`;
  return out;
}

/** An STS-like endpoint that recomputes the AWS Signature V4 of each request and refuses a wrong one. */
export function awsUpstream(keys: { accessKeyId: string; secretAccessKey: string }, region: string, service: string): Server<undefined> {
  return Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const url = new URL(request.url);
      const auth = request.headers.get("authorization") ?? "";
      const match = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$/.exec(auth);
      if (!match || match[1] !== keys.accessKeyId || match[3] !== region || match[4] !== service)
        return new Response("<Error><Code>InvalidClientTokenId</Code></Error>", { status: 403 });
      const [, , date, , , signed, signature] = match;
      const body = await request.text();
      const amzDate = request.headers.get("x-amz-date")!;
      const query = [...url.searchParams].map(([k, v]) => [enc(k), enc(v)]).sort(([a, b], [c, d]) => (a! < c! ? -1 : a! > c! ? 1 : b! < d! ? -1 : 1));
      const canonical = [
        request.method,
        url.pathname || "/",
        query.map(([k, v]) => `${k}=${v}`).join("&"),
        signed!.split(";").map((h) => `${h}:${(h === "host" ? url.host : request.headers.get(h) ?? "").trim()}\n`).join(""),
        signed,
        createHash("sha256").update(body).digest("hex"),
      ].join("\n");
      const scope = `${date}/${region}/${service}/aws4_request`;
      const toSign = ["AWS4-HMAC-SHA256", amzDate, scope, createHash("sha256").update(canonical).digest("hex")].join("\n");
      const hmac = (key: string | Buffer, data: string) => createHmac("sha256", key).update(data).digest();
      const signingKey = hmac(hmac(hmac(hmac(`AWS4${keys.secretAccessKey}`, date!), region), service), "aws4_request");
      if (hmac(signingKey, toSign).toString("hex") !== signature)
        return new Response("<Error><Code>SignatureDoesNotMatch</Code></Error>", { status: 403 });
      return new Response(
        `<GetCallerIdentityResponse><GetCallerIdentityResult><Arn>arn:aws:iam::123456789012:user/dev</Arn><Account>123456789012</Account></GetCallerIdentityResult></GetCallerIdentityResponse>`,
        { headers: { "content-type": "text/xml" } },
      );
    },
  });
}

const enc = (s: string) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
