/** Server-rendered HTML for the setup page. Every value is escaped; nothing loads from elsewhere. */
import type { ServiceView } from "../model.ts";
import { fieldsFor, templates, type Template } from "../templates.ts";

const escape = (value: string) =>
  value.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

const style = `
body{font:15px/1.5 system-ui,sans-serif;margin:2rem auto;max-width:56rem;padding:0 1rem;color:#1b1f24}
h1{font-size:1.4rem}h2{font-size:1.1rem;margin-top:2rem}
table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #d0d7de;padding:.4rem;text-align:left}
.working{color:#1a7f37}.failing{color:#cf222e}.unchecked{color:#6e7781}
.notice{background:#ddf4ff;border:1px solid #54aeff;padding:.5rem 1rem}.problem{background:#ffebe9;border:1px solid #ff8182;padding:.5rem 1rem}
form.inline{display:inline}label{display:block;margin:.5rem 0}input[type=text],input[type=password],select{width:24rem;max-width:100%}
`;

export function layout(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escape(title)}</title>
<meta name="viewport" content="width=device-width,initial-scale=1"><style>${style}</style></head>
<body><h1>${escape(title)}</h1>${body}</body></html>`;
}

export function messagePage(title: string, message: string): string {
  return layout(title, `<p class="problem">${escape(message)}</p>`);
}

export function homePage(services: ServiceView[], csrf: string, notice?: { text: string; ok: boolean }): string {
  const rows = services
    .map(
      (s) => `<tr data-service="${escape(s.name)}"><td>${escape(s.name)}</td><td>${escape(s.template)}</td><td>${escape(s.base_url)}</td>
<td class="${s.status}">${escape(s.status)}${s.status_reason ? ` (${escape(s.status_reason)})` : ""}</td>
<td><form class="inline" method="post" action="/services/${encodeURIComponent(s.name)}/check"><input type="hidden" name="csrf" value="${csrf}"><button>Check</button></form>
<form class="inline" method="post" action="/services/${encodeURIComponent(s.name)}/remove"><input type="hidden" name="csrf" value="${csrf}"><button>Remove</button></form></td></tr>`,
    )
    .join("");
  const options = [...templates.map((t) => [t.name, t.title] as const), ["custom", "Custom service"] as const]
    .map(([name, title]) => `<option value="${name}">${escape(title)}</option>`)
    .join("");
  return layout(
    "Credential vault setup",
    `${notice ? `<p class="${notice.ok ? "notice" : "problem"}" role="status">${escape(notice.text)}</p>` : ""}
<h2>Services</h2>
${services.length ? `<table><thead><tr><th>Name</th><th>Template</th><th>Base URL</th><th>Status</th><th></th></tr></thead><tbody>${rows}</tbody></table>` : "<p>No services yet.</p>"}
<h2>Add a service</h2>
<form method="get" action="/add"><label>Template <select name="template">${options}</select></label><button>Next</button></form>`,
  );
}

/**
 * The fields an add form keeps when it comes back with a problem: everything but the credential, which is never
 * written into a page (retyped instead).
 */
const keptNames = ["name", "base_url", "injection", "injection_name", "probe_path", "allow_loopback"] as const;
export type Kept = Partial<Record<(typeof keptNames)[number], string>>;
export const keptFields = (form: Record<string, unknown>): Kept =>
  Object.fromEntries(keptNames.filter((name) => typeof form[name] === "string").map((name) => [name, (form[name] as string).slice(0, 2048)]));

const injections = [
  ["bearer", "Bearer header"],
  ["basic", "Basic auth"],
  ["header", "Custom header"],
  ["query", "Query parameter"],
] as const;

/** The form that adds a service of `template`; after a refused post, `again` holds what was typed and why it failed. */
export function addPage(template: Template, csrf: string, again?: { values: Kept; problem: string }): string {
  const custom = template.kind === "custom";
  const kept = again?.values ?? {};
  const value = (name: keyof Kept) => (kept[name] ? ` value="${escape(kept[name])}"` : "");
  const fields = custom ? [...fieldsFor({ type: "basic" }), ...fieldsFor({ type: "bearer" })] : template.fields;
  const credentialInputs = fields
    .map((f) => `<label>${escape(f.label)}${f.optional ? " (optional)" : ""}${custom ? ` <small>(${f.name === "token" ? "bearer, header, query" : "basic"})</small>` : ""}
<input name="cred_${f.name}" type="${f.secret ? "password" : "text"}" autocomplete="off"></label>`)
    .join("");
  const options = injections.map(([kind, label]) => `<option value="${kind}"${kept.injection === kind ? " selected" : ""}>${label}</option>`).join("");
  const customInputs = custom
    ? `<label>Base URL <input name="base_url" type="text" placeholder="https://api.example.com"${value("base_url")}></label>
<label>Injection <select name="injection">${options}</select></label>
<label>Header or parameter name <input name="injection_name" type="text"${value("injection_name")}></label>
<label>Probe path (GET) <input name="probe_path" type="text" placeholder="/user"${value("probe_path")}></label>`
    : "";
  const name = again ? (kept.name ?? "") : template.name === "custom" ? "" : template.name;
  return layout(
    `Add a ${template.title} service`,
    `${again ? `<p class="problem" role="alert">${escape(again.problem)} Enter the credential again: it is never sent back to the page.</p>` : ""}
<form method="post" action="/services"><input type="hidden" name="csrf" value="${csrf}"><input type="hidden" name="template" value="${escape(template.name)}">
<label>Name <input name="name" type="text" required pattern="[a-z][a-z0-9-]{0,63}" value="${escape(name)}"></label>
${customInputs}${credentialInputs}
<label><input type="checkbox" name="allow_loopback" value="1"${kept.allow_loopback === "1" ? " checked" : ""}> Allow loopback addresses (only for a service running on this machine)</label>
<button>Add service</button></form><p><a href="/">Back</a></p>`,
  );
}
