/**
 * A small web site with known defects, served on a free loopback port, for the browser tests and benchmarks:
 * a login flow, a form, pages that log errors, fail requests or link nowhere, accessibility and responsive
 * defects, and headers that a passive security check should flag. Every defect is deliberate and listed where
 * it is made, so tests can assert the exact findings.
 */
import type { Server } from "bun";

export const password = "correct horse battery staple";

const layout = (title: string, body: string, head = '<meta name="viewport" content="width=device-width, initial-scale=1">') =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8">${head}<title>${title}</title></head><body>${body}</body></html>`;

const html = (body: string, init: ResponseInit = {}) =>
  new Response(body, { ...init, headers: { "content-type": "text/html; charset=utf-8", ...(init.headers as Record<string, string>) } });

const cookieOf = (request: Request, name: string) =>
  request.headers
    .get("cookie")
    ?.split(";")
    .map((part) => part.trim().split("="))
    .find(([key]) => key === name)?.[1];

/** A linked site of `count` plain pages (`/site/0` .. `/site/<count-1>`), each linking to the next three. */
export function sitePage(index: number, count: number): string {
  const links = [1, 2, 3].map((step) => (index + step) % count).map((to) => `<li><a href="/site/${to}">Page ${to}</a></li>`);
  return layout(
    `Page ${index}`,
    `<header><nav aria-label="Main"><a href="/site/0">Home</a></nav></header><main><h1>Page ${index}</h1><p>Content of page ${index}.</p><ul>${links.join("")}</ul></main>`,
  );
}

export function routes(request: Request, origin: string): Response | Promise<Response> {
  const url = new URL(request.url);
  const path = url.pathname;
  if (path.startsWith("/site/")) return html(sitePage(Number(path.slice(6)), Number(url.searchParams.get("count") ?? 50)));
  switch (path) {
    case "/":
      return html(
        layout(
          "Fixture shop",
          `<header><nav aria-label="Main"><a href="/">Home</a> <a href="/form">Form</a> <a href="/login">Sign in</a></nav></header>
           <main><h1>Fixture shop</h1><p>Welcome.</p><a href="/next">Next page</a><button onclick="document.querySelector('#out').textContent='clicked'">Press me</button><p id="out"></p></main>`,
        ),
      );
    case "/next":
      return html(layout("Next page", `<main><h1>Next page</h1><a href="/">Back home</a></main>`));
    case "/form":
      return html(
        layout(
          "Order form",
          `<main><h1>Order</h1><form action="/form" method="post">
             <label for="name">Name</label><input id="name" name="name">
             <label for="size">Size</label><select id="size" name="size"><option value="s">Small</option><option value="m">Medium</option><option value="l">Large</option></select>
             <label for="note">Note</label><input id="note" name="note" onkeydown="document.querySelector('#keys').textContent = (Number(document.querySelector('#keys').textContent) + 1)">
             <button type="submit">Send</button></form>
             <p>Keys: <span id="keys">0</span></p>
             <div id="tip" onmouseover="this.textContent='Tip shown'">Hover for a tip</div>
             <button id="later" onclick="setTimeout(() => document.querySelector('#done').textContent = 'Ready now', 300)">Start</button><p id="done"></p></main>`,
        ),
      );
    case "/login":
      if (request.method === "POST") return login(request);
      return html(
        layout(
          "Sign in",
          `<main><h1>Sign in</h1>${url.searchParams.has("failed") ? '<p role="alert">Wrong email or password</p>' : ""}
           <form method="post" action="/login"><label>Email <input type="email" name="email" autocomplete="username"></label>
           <label>Password <input type="password" name="password" autocomplete="current-password"></label>
           <button type="submit">Sign in</button></form></main>`,
        ),
      );
    case "/account": {
      const user = cookieOf(request, "session");
      if (!user) return Response.redirect(`${origin}/login`, 302);
      return html(layout("Your account", `<main><h1>Welcome, ${decodeURIComponent(user)}</h1><script>localStorage.setItem("visited", "yes")</script></main>`));
    }
    case "/storage":
      return html(layout("Storage", `<main><p id="value"></p><script>document.querySelector('#value').textContent = localStorage.getItem('visited') ?? 'none'</script></main>`));
    case "/console":
      // Defects: one console.error, one uncaught exception, one failing request (404 image).
      return html(
        layout(
          "Console errors",
          `<main><h1>Console</h1><img src="/missing.png" alt="missing"><script>console.error("boom from the page"); console.warn("careful"); setTimeout(() => { throw new Error("uncaught on purpose") }, 0)</script></main>`,
        ),
      );
    case "/slow":
      return new Promise((resolve) => setTimeout(() => resolve(html(layout("Slow", "<main><h1>Slow</h1></main>"))), Number(url.searchParams.get("ms") ?? 500)));
    case "/spin":
      // Defect: the page's script never yields, so its load never ends and nothing can be evaluated in it.
      return html(layout("Spinning", `<main><h1>Spinning</h1><script>for (;;) {}</script></main>`));
    case "/a11y":
      // Defects (WCAG 2.1 A): an image without alt text, a field without a label, a button without a name, no page
      // language; (AA): grey text on white below 4.5:1 contrast.
      return html(
        `<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Inaccessible</title></head>
         <body><main><h1>Inaccessible</h1><img src="/logo.png" width="40" height="40"><form><input type="text" name="q"><button type="submit"></button></form>
         <p style="color:#aaa;background:#fff">Low contrast text</p></main></body></html>`,
      );
    case "/a11y-ok":
      return html(layout("Accessible", `<main><h1>Accessible</h1><img src="/logo.png" alt="Company logo" width="40" height="40"><form><label for="q">Search</label><input id="q" name="q"><button type="submit">Search</button></form><p>Plain text.</p></main>`));
    case "/logo.png":
      return new Response(Uint8Array.from(atob("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII="), (c) => c.charCodeAt(0)), { headers: { "content-type": "image/png" } });
    case "/crawl/":
      return html(layout("Crawl home", `<header><nav aria-label="Main"><a href="/crawl/a">A</a> <a href="/crawl/b">B</a> <a href="/crawl/form">Form</a></nav></header><main><h1>Home</h1><a href="/crawl/errors">Errors</a> <a href="/crawl/missing">Missing</a> <a href="mailto:x@example.com">Mail</a></main>`));
    case "/crawl/a":
      return html(layout("A", `<main><h1>A</h1><a href="/crawl/deep">Deeper</a> <a href="/crawl/">Home</a></main>`));
    case "/crawl/b":
      return html(layout("B", `<main><h1>B</h1><a href="/crawl/a#top">A again</a></main>`));
    case "/crawl/deep":
      return html(layout("Deep", `<main><h1>Deep</h1><a href="/crawl/deeper">Deeper still</a></main>`));
    case "/crawl/deeper":
      return html(layout("Deeper", `<main><h1>Deeper</h1></main>`));
    case "/crawl/form":
      // Defect: the phone field has no label.
      return html(layout("Form", `<main><h1>Contact</h1><form action="/crawl/form" method="post"><label for="email">Email</label><input id="email" name="email" type="email"><input name="phone" type="tel"><button>Send</button></form></main>`));
    case "/crawl/errors":
      // Defects: a console error, an uncaught exception and an image that answers 404.
      return html(layout("Errors", `<main><h1>Errors</h1><img src="/crawl/nothing.png" alt="nothing"><script>console.error("crawl error"); setTimeout(() => { throw new TypeError("crawl exception") })</script></main>`));
    case "/responsive":
      // Defects: no viewport meta (so phones lay it out 980px wide); a 1100px wide banner; a 16x16 button; 10px text.
      return html(
        layout(
          "Not responsive",
          `<main><h1>Wide</h1><div id="banner" style="width:1100px;height:40px;background:#ccd">Banner</div>
           <button id="tiny" style="width:16px;height:16px;padding:0;border:0" aria-label="Close">x</button><p id="fine" style="font-size:10px">Fine print</p></main>`,
          "",
        ),
      );
    case "/responsive-wide":
      // Defect: with a viewport meta tag, a 1100px banner sticks out past a phone's screen.
      return html(layout("Wide banner", `<main><h1>Wide</h1><div id="banner" style="width:1100px;height:40px">Banner</div></main>`));
    case "/responsive-ok":
      return html(layout("Responsive", `<main><h1>Fits</h1><p>Text that wraps.</p><button style="min-width:44px;min-height:44px">OK</button></main>`));
    case "/secure-bad":
      // Defects: no CSP, no nosniff, no framing protection, no Referrer-Policy, version-disclosing headers, CORS wildcard
      // with credentials, a cookie without HttpOnly or SameSite, set over http, and a password form over http.
      return html(layout("Weak", `<main><h1>Weak</h1><form method="post" action="/login"><label>Password <input type="password" name="p"></label><button>Go</button></form></main>`), {
        headers: {
          server: "nginx/1.18.0",
          "x-powered-by": "Express",
          "access-control-allow-origin": "*",
          "access-control-allow-credentials": "true",
          "set-cookie": "tracker=1; Path=/",
        },
      });
    case "/secure-good":
      return html(layout("Strong", `<main><h1>Strong</h1></main>`), {
        headers: {
          "content-security-policy": "default-src 'self'; frame-ancestors 'self'",
          "x-content-type-options": "nosniff",
          "referrer-policy": "strict-origin-when-cross-origin",
        },
      });
    case "/hang":
      return new Promise(() => {});
    default:
      return new Response("Not found", { status: 404, headers: { "content-type": "text/plain" } });
  }
}

async function login(request: Request): Promise<Response> {
  const form = await request.formData();
  const origin = new URL(request.url).origin;
  if (form.get("password") !== password) return Response.redirect(`${origin}/login?failed`, 303);
  return new Response(null, {
    status: 303,
    headers: { location: `${origin}/account`, "set-cookie": `session=${encodeURIComponent(String(form.get("email")))}; Path=/; HttpOnly; SameSite=Lax` },
  });
}

export interface Site {
  server: Server<undefined>;
  origin: string;
  url(path: string): string;
  stop(): void;
}

export function startSite(): Site {
  const server: Server<undefined> = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (request) => routes(request, `http://127.0.0.1:${server.port}`) });
  const origin = `http://127.0.0.1:${server.port}`;
  return { server, origin, url: (path) => `${origin}${path}`, stop: () => void server.stop(true) };
}
