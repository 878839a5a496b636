/**
 * The setup page: its own listener on 127.0.0.1 only. A one-time link printed at start-up opens a session
 * (an admin lease, see ../admin.ts; cookie HttpOnly + SameSite=Strict); every form carries a CSRF token bound to it.
 * The link lives in this process's memory only: a restart, even after a crash, makes the old one worthless.
 * `platform vault setup-link` asks the running server (over its admin socket) for a new one, which replaces it.
 */
import { Elysia } from "elysia";
import { exclusively } from "../../listen.ts";
import type { Logger } from "../../log.ts";
import { constantTimeEqual, randomToken, sha256 } from "../crypto.ts";
import { VaultError } from "../errors.ts";
import type { Caller } from "../approle.ts";
import type { AddServiceInput, Injection } from "../model.ts";
import type { VaultService } from "../service.ts";
import { findTemplate } from "../templates.ts";
import { addPage, homePage, keptFields, messagePage } from "./page.ts";

const cookieName = "platform_vault_setup";
const linkTtlMs = 15 * 60_000;
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
  /** The one-time link now in force: printed once at start-up, replaced by `renewLink`. */
  readonly link: string;
  /** A new one-time link, good for 15 minutes; the one before it stops working at once. */
  renewLink(): { link: string; expiresAt: Date };
  stop(): Promise<void>;
}

export function startSetupServer(vault: VaultService, log: Logger, port: number): SetupServer {
  /** The link now in force: its hash until it is used (then undefined), and when it stops working. */
  let once: { link: string; unusedHash: string | undefined; expiresAt: number };
  const newLink = (base: string) => {
    const value = randomToken("");
    once = { link: `${base}/login?once=${value}`, unusedHash: sha256(value), expiresAt: Date.now() + linkTtlMs };
    return { link: once.link, expiresAt: new Date(once.expiresAt) };
  };
  const takeLink = (given: unknown) => {
    const valid = typeof given === "string" && once.unusedHash !== undefined && Date.now() < once.expiresAt && constantTimeEqual(sha256(given), once.unusedHash);
    if (valid) once.unusedHash = undefined;
    return valid;
  };

  const sessionOf = async (cookie: string | null): Promise<Session | undefined> => {
    const value = cookie?.split(/;\s*/).find((c) => c.startsWith(`${cookieName}=`))?.slice(cookieName.length + 1);
    const caller = await vault.admin.session(value);
    return caller && value ? { caller, csrf: sha256(`csrf:${value}`) } : undefined;
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
      if (!takeLink(query.once)) return html(messagePage("Setup", "This link is not valid (it works once, for 15 minutes). Run 'platform vault setup-link' for a new one."), 401);
      return redirect("/", `${cookieName}=${await vault.admin.openSession()}; HttpOnly; SameSite=Strict; Path=/; Max-Age=${vault.config.setup_session_seconds}`);
    })
    .onBeforeHandle(async ({ request }) => {
      const session = await sessionOf(request.headers.get("cookie"));
      if (!session) return html(messagePage("Setup", "Open the one-time link the server printed at start-up, or run 'platform vault setup-link' for a new one."), 401);
      if (request.method === "POST") {
        const origin = request.headers.get("origin");
        if (origin && origin !== `http://${request.headers.get("host")}`) return html(messagePage("Setup", "Cross-site request refused."), 403);
      }
    })
    .get("/", async ({ request, query }) => {
      const session = (await sessionOf(request.headers.get("cookie")))!;
      if (await vault.store.isSealed()) return html(messagePage("Setup", "The vault is sealed; run 'platform vault unseal'."), 503);
      const notice = typeof query.notice === "string" ? { text: query.notice.slice(0, 300), ok: query.ok === "1" } : undefined;
      return html(homePage(await vault.services(session.caller), session.csrf, notice));
    })
    .get("/add", async ({ request, query }) => {
      const session = (await sessionOf(request.headers.get("cookie")))!;
      const template = findTemplate(String(query.template ?? ""));
      if (!template) return back("Choose a template", false);
      return html(addPage(template, session.csrf));
    })
    .post("/services", async ({ request, body }) => {
      const { form, session } = await checkedForm(request, body, sessionOf);
      const template = findTemplate(String(form.template ?? ""));
      if (!template) return back("Choose a template", false);
      try {
        await vault.addService(serviceInput(form), session.caller);
      } catch (error) {
        // The form again, as it was typed, with what was wrong; the credential fields are empty (never echoed).
        if (!(error instanceof VaultError) || error.code === "SEALED") throw error;
        return html(addPage(template, session.csrf, { values: keptFields(form), problem: error.message }), error.status);
      }
      return back(`Added ${form.name}`, true);
    })
    .post("/services/:name/check", async ({ request, body, params }) => {
      const { session } = await checkedForm(request, body, sessionOf);
      const result = await vault.check(params.name, session.caller);
      return back(`${params.name}: ${result.ok ? "working" : result.reason}`, result.ok);
    })
    .post("/services/:name/remove", async ({ request, body, params }) => {
      const { session } = await checkedForm(request, body, sessionOf);
      await vault.removeService(params.name, session.caller);
      return back(`Removed ${params.name}`, true);
    });

  app.listen(exclusively("127.0.0.1", port));
  const url = `http://127.0.0.1:${app.server!.port}`;
  newLink(url);
  return {
    url,
    get link() {
      return once.link;
    },
    renewLink: () => newLink(url),
    async stop() {
      await app.stop(true);
    },
  };
}

type Form = Record<string, string>;
type Session = { caller: Caller; csrf: string };

async function checkedForm(request: Request, body: unknown, sessionOf: (cookie: string | null) => Promise<Session | undefined>): Promise<{ form: Form; session: Session }> {
  const form = (body ?? {}) as Form;
  const session = await sessionOf(request.headers.get("cookie"));
  if (!session || typeof form.csrf !== "string" || !constantTimeEqual(form.csrf, session.csrf))
    throw VaultError.invalid("The form expired or did not come from this page (CSRF check failed); reload and try again");
  return { form, session };
}

/** The form as the service's input; the service checks every rule (the name's shape too). */
function serviceInput(form: Form): AddServiceInput {
  const credential = Object.fromEntries(
    Object.entries(form)
      .filter(([key, value]) => key.startsWith("cred_") && value !== "")
      .map(([key, value]) => [key.slice(5), value]),
  );
  const input: AddServiceInput = { name: String(form.name ?? ""), template: String(form.template ?? ""), credential };
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
