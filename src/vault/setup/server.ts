/**
 * The setup page: its own listener on 127.0.0.1 only. A one-time link printed at start-up opens a session
 * (a vault-lease actor, cookie HttpOnly + SameSite=Strict); every form carries a CSRF token bound to it.
 * The link lives in this process's memory only: a restart, even after a crash, makes the old one worthless.
 */
import { Elysia } from "elysia";
import { exclusively } from "../../listen.ts";
import type { Logger } from "../../log.ts";
import { constantTimeEqual, randomToken, sha256 } from "../crypto.ts";
import { VaultError } from "../errors.ts";
import type { AddServiceInput, Injection } from "../model.ts";
import type { VaultService } from "../service.ts";
import { findTemplate } from "../templates.ts";
import { addPage, homePage, messagePage } from "./page.ts";

const cookieName = "platform_vault_setup";
const linkTtlMs = 15 * 60_000;
const setupCaller = { name: "setup", services: ["*"] };
const headers = {
  "content-type": "text/html; charset=utf-8",
  "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  "x-content-type-options": "nosniff",
  // same-origin, not no-referrer: the latter makes browsers send `Origin: null` on our own form posts.
  "referrer-policy": "same-origin",
  "cache-control": "no-store",
};

export interface SetupServer {
  url: string;
  /** The one-time link; printed once at start-up. */
  link: string;
  stop(): Promise<void>;
}

export function startSetupServer(vault: VaultService, log: Logger, port: number): SetupServer {
  const oneTime = randomToken("");
  /** The link's hash until it is used; it also stops working after `linkTtlMs`. */
  let unusedLink: string | undefined = sha256(oneTime);
  const linkExpiresAt = Date.now() + linkTtlMs;
  const takeLink = (given: unknown) => {
    const valid = typeof given === "string" && unusedLink !== undefined && Date.now() < linkExpiresAt && constantTimeEqual(sha256(given), unusedLink);
    if (valid) unusedLink = undefined;
    return valid;
  };
  const sessionMs = vault.config.setup_session_seconds * 1000;

  const sessionOf = async (cookie: string | undefined) => {
    const value = cookie?.split(/;\s*/).find((c) => c.startsWith(`${cookieName}=`))?.slice(cookieName.length + 1);
    if (!value) return undefined;
    const lease = await vault.leases.liveByHash(sha256(value));
    return lease?.context?.holder === "setup" ? { value, csrf: sha256(`csrf:${value}`) } : undefined;
  };
  const html = (body: string, status = 200) => new Response(body, { status, headers });
  const redirect = (location: string, cookie?: string) =>
    new Response(null, { status: 303, headers: { location, "cache-control": "no-store", ...(cookie ? { "set-cookie": cookie } : {}) } });
  const back = (text: string, ok: boolean) => redirect(`/?${new URLSearchParams({ notice: text, ok: ok ? "1" : "0" })}`);

  const app = new Elysia()
    .onError(({ error }) => {
      if (error instanceof VaultError) return back(error.message, false);
      log.error("setup page error", { error });
      return html(messagePage("Setup", "Something went wrong; the server log has the details."), 500);
    })
    .get("/login", async ({ query }) => {
      if (!takeLink(query.once)) return html(messagePage("Setup", "This link is not valid (it works once). Restart the server for a new one."), 401);
      const session = randomToken("");
      const issued = await vault.leases.issue({ purpose: "session", holder: "setup", hash: sha256(session), ttlMs: sessionMs, maxExpiresAt: Date.now() + sessionMs, autoRenew: false });
      await vault.leases.activate(issued.id);
      return redirect("/", `${cookieName}=${session}; HttpOnly; SameSite=Strict; Path=/; Max-Age=${vault.config.setup_session_seconds}`);
    })
    .onBeforeHandle(async ({ request }) => {
      const session = await sessionOf(request.headers.get("cookie") ?? undefined);
      if (!session) return html(messagePage("Setup", "Open the one-time link printed in the server log at start-up."), 401);
      if (request.method === "POST") {
        const origin = request.headers.get("origin");
        if (origin && origin !== `http://${request.headers.get("host")}`) return html(messagePage("Setup", "Cross-site request refused."), 403);
      }
    })
    .get("/", async ({ request, query }) => {
      const session = (await sessionOf(request.headers.get("cookie") ?? undefined))!;
      if (await vault.store.isSealed()) return html(messagePage("Setup", "The vault is sealed; run 'platform vault unseal'."), 503);
      const notice = typeof query.notice === "string" ? { text: query.notice.slice(0, 300), ok: query.ok === "1" } : undefined;
      return html(homePage(await vault.services(setupCaller), session.csrf, notice));
    })
    .get("/add", async ({ request, query }) => {
      const session = (await sessionOf(request.headers.get("cookie") ?? undefined))!;
      const template = findTemplate(String(query.template ?? ""));
      if (!template) return back("Choose a template", false);
      return html(addPage(template, session.csrf));
    })
    .post("/services", async ({ request, body }) => {
      const form = await checkedForm(request, body, sessionOf);
      await vault.addService(serviceInput(form), setupCaller);
      return back(`Added ${form.name}`, true);
    })
    .post("/services/:name/check", async ({ request, body, params }) => {
      await checkedForm(request, body, sessionOf);
      const result = await vault.check(params.name, setupCaller);
      return back(`${params.name}: ${result.ok ? "working" : result.reason}`, result.ok);
    })
    .post("/services/:name/remove", async ({ request, body, params }) => {
      await checkedForm(request, body, sessionOf);
      await vault.removeService(params.name, setupCaller);
      return back(`Removed ${params.name}`, true);
    });

  app.listen(exclusively("127.0.0.1", port));
  const url = `http://127.0.0.1:${app.server!.port}`;
  return {
    url,
    link: `${url}/login?once=${oneTime}`,
    async stop() {
      await app.stop(true);
    },
  };
}

type Form = Record<string, string>;

async function checkedForm(request: Request, body: unknown, sessionOf: (cookie: string | undefined) => Promise<{ csrf: string } | undefined>): Promise<Form> {
  const form = (body ?? {}) as Form;
  const session = await sessionOf(request.headers.get("cookie") ?? undefined);
  if (!session || typeof form.csrf !== "string" || !constantTimeEqual(form.csrf, session.csrf))
    throw VaultError.invalid("The form expired or did not come from this page (CSRF check failed); reload and try again");
  return form;
}

function serviceInput(form: Form): AddServiceInput {
  const credential = Object.fromEntries(
    Object.entries(form)
      .filter(([key, value]) => key.startsWith("cred_") && value !== "")
      .map(([key, value]) => [key.slice(5), value]),
  );
  const input: AddServiceInput = { name: String(form.name ?? ""), template: String(form.template ?? ""), credential };
  if (!/^[a-z][a-z0-9-]{0,63}$/.test(input.name)) throw VaultError.invalid("Name: lowercase letters, digits and dashes, starting with a letter");
  if (form.allow_loopback === "1") input.allow_addresses = ["loopback"];
  if (input.template === "custom") {
    input.base_url = form.base_url;
    const kind = form.injection ?? "bearer";
    const name = form.injection_name || (kind === "query" ? "api_key" : "x-api-key");
    const injection: Injection = kind === "basic" ? { type: "basic" } : kind === "header" ? { type: "header", name } : kind === "query" ? { type: "query", name } : { type: "bearer" };
    input.injection = injection;
    if (kind === "basic") delete credential.token;
    else (delete credential.username, delete credential.password);
    if (form.probe_path) input.probe = { method: "GET", path: form.probe_path };
  }
  return input;
}
