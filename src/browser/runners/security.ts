/**
 * The passive security test: it opens the page once and reads what came back, sending nothing an attacker
 * would. It checks the response headers (CSP, HSTS, X-Content-Type-Options, framing, Referrer-Policy, CORS,
 * headers that disclose versions), the cookies' flags, mixed content, and password forms over plain http.
 */
import type { Page, Response } from "playwright-core";
import type { Finding, SecurityInput } from "../model.ts";
import type { DriverSession, RunContext } from "../driver/session.ts";
import { bySeverity, type RunOutcome } from "./outcome.ts";

declare const document: any;

interface SetCookie {
  name: string;
  secure: boolean;
  httpOnly: boolean;
  sameSite?: string;
}

function parseSetCookie(line: string): SetCookie {
  const [pair = "", ...attributes] = line.split(";").map((part) => part.trim());
  const flags = new Map(attributes.map((attribute) => {
    const [key = "", value = ""] = attribute.split("=");
    return [key.toLowerCase(), value.toLowerCase()];
  }));
  return { name: pair.split("=")[0]!, secure: flags.has("secure"), httpOnly: flags.has("httponly"), sameSite: flags.get("samesite") };
}

const disclosing = ["server", "x-powered-by", "x-aspnet-version", "x-aspnetmvc-version", "x-generator", "x-runtime"];

export async function security(session: DriverSession, input: SecurityInput, run: RunContext): Promise<RunOutcome> {
  const [page] = (await session.runPages(1)) as [Page];
  try {
    const responses: Response[] = [];
    page.on("response", (response) => responses.push(response));
    run.progress({ category: "security", phase: "start", message: `Opening ${input.url}` });
    const main = await page.goto(input.url, { waitUntil: "load" });
    const url = new URL(page.url());
    const https = url.protocol === "https:";
    const headers = main ? await main.allHeaders() : {};
    const findings: Finding[] = [];
    const add = (rule: string, severity: Finding["severity"], title: string, description: string, recommendation: string, data?: Record<string, unknown>) =>
      findings.push({ rule, category: "security", severity, title, description, url: url.href, recommendation, ...(data ? { data } : {}) });
    run.progress({ category: "security", phase: "check", message: "Checking headers, cookies and content" });

    const csp = headers["content-security-policy"];
    if (!csp) add("missing-csp", "medium", "No Content-Security-Policy", "The page sets no Content-Security-Policy, so an injected script runs unhindered", "Send a Content-Security-Policy, starting with default-src 'self'.");
    else {
      if (/script-src[^;]*'unsafe-inline'|default-src[^;]*'unsafe-inline'/.test(csp) && !/'nonce-|'sha\d+-/.test(csp))
        add("csp-unsafe-inline", "medium", "CSP allows inline scripts", `The policy allows 'unsafe-inline': ${csp}`, "Use nonces or hashes instead of 'unsafe-inline'.", { policy: csp });
      if (/'unsafe-eval'/.test(csp)) add("csp-unsafe-eval", "low", "CSP allows eval", `The policy allows 'unsafe-eval': ${csp}`, "Remove 'unsafe-eval'.", { policy: csp });
    }
    if (https && !headers["strict-transport-security"])
      add("missing-hsts", "medium", "No Strict-Transport-Security", "The page does not tell browsers to keep to https", "Send Strict-Transport-Security: max-age=31536000; includeSubDomains.");
    if (headers["x-content-type-options"]?.toLowerCase() !== "nosniff")
      add("missing-x-content-type-options", "low", "No X-Content-Type-Options: nosniff", "Browsers may guess content types, turning an upload into a script", "Send X-Content-Type-Options: nosniff.");
    if (!/frame-ancestors/.test(csp ?? "") && !headers["x-frame-options"])
      add("missing-frame-protection", "medium", "The page may be framed (clickjacking)", "Neither CSP frame-ancestors nor X-Frame-Options limits who may frame the page", "Send Content-Security-Policy: frame-ancestors 'self' (or X-Frame-Options: DENY).");
    const referrer = headers["referrer-policy"];
    if (!referrer) add("missing-referrer-policy", "low", "No Referrer-Policy", "Full URLs, query strings included, may be sent to other sites", "Send Referrer-Policy: strict-origin-when-cross-origin.");
    else if (/unsafe-url|no-referrer-when-downgrade/.test(referrer))
      add("weak-referrer-policy", "low", "Referrer-Policy leaks full URLs", `Referrer-Policy is ${referrer}`, "Use strict-origin-when-cross-origin or stricter.", { policy: referrer });

    for (const response of [main, ...responses].filter((r): r is Response => r !== null)) {
      const h = await response.allHeaders().catch(() => ({}) as Record<string, string>);
      if (h["access-control-allow-origin"] === "*" && h["access-control-allow-credentials"] === "true") {
        add("cors-wildcard-credentials", "high", "CORS allows any origin with credentials", `${response.url()} answers Access-Control-Allow-Origin: * with Access-Control-Allow-Credentials: true`, "Allow only the origins that need access, and credentials only for them.", { response: response.url() });
        break;
      }
    }
    for (const name of disclosing) {
      const value = headers[name];
      if (value && (name !== "server" || /\d/.test(value)))
        add("version-disclosure", "low", `${name} discloses the software`, `${name}: ${value}`, `Remove the ${name} header or its version.`, { header: name, value });
    }

    // The cookies this page load sets (its Set-Cookie headers), not whatever the session already holds.
    const cookies: SetCookie[] = [];
    for (const response of [main, ...responses].filter((r): r is Response => r !== null))
      for (const header of await response.headerValues("set-cookie").catch(() => [] as string[])) for (const line of header.split("\n")) cookies.push(parseSetCookie(line));
    for (const cookie of new Map(cookies.map((c) => [c.name, c])).values()) {
      const data = { cookie: cookie.name };
      if (!cookie.secure && https) add("cookie-missing-secure", "medium", `Cookie ${cookie.name} lacks Secure`, `The cookie may also travel over plain http`, "Set the Secure flag.", data);
      if (!https) add("cookie-over-http", "medium", `Cookie ${cookie.name} set over http`, "The cookie travels unencrypted", "Serve the site over https and set Secure.", data);
      if (!cookie.httpOnly) add("cookie-missing-httponly", "low", `Cookie ${cookie.name} lacks HttpOnly`, "Scripts on the page, injected ones too, can read it", "Set HttpOnly unless a script must read it.", data);
      if (cookie.sameSite === "none" && !cookie.secure) add("cookie-samesite-none-insecure", "medium", `Cookie ${cookie.name} is SameSite=None without Secure`, "Browsers reject or leak it", "Set Secure with SameSite=None, or use Lax.", data);
    }

    if (https) {
      const insecure = responses.map((r) => r.url()).filter((u) => u.startsWith("http:"));
      if (insecure.length)
        add("mixed-content", "high", "Mixed content", `The https page loads ${insecure.length} resource(s) over http: ${insecure.slice(0, 5).join(", ")}`, "Load every resource over https.", { resources: insecure });
    }
    const forms: { passwords: number; actions: string[] } = await page.evaluate(() => ({
      passwords: document.querySelectorAll('input[type="password"]').length,
      actions: [...document.querySelectorAll("form")].filter((f: any) => f.querySelector('input[type="password"]')).map((f: any) => f.action),
    }));
    if (forms.passwords && (!https || forms.actions.some((action) => action.startsWith("http:"))))
      add("password-over-http", "high", "Password form over http", "A password is entered or sent without encryption", "Serve the page and post the form over https.", { actions: forms.actions });

    run.progress({ category: "security", phase: "done", message: `${findings.length} finding(s)`, data: bySeverity(findings) });
    return {
      url: url.href,
      findings,
      screenshots: [],
      summary: { https, status_code: main?.status() ?? null, headers_checked: Object.keys(headers).length, cookies_set: cookies.length, by_severity: bySeverity(findings) },
    };
  } finally {
    page.removeAllListeners("response");
    await session.releaseRunPages([page]);
  }
}
