/**
 * The MCP transport spec's guard against DNS rebinding: a server must check the Origin of every HTTP request and
 * answer 403 when it is present and not allowed. A rebinding page runs at its own origin (http://evil.example)
 * while its requests reach this server, so the Origin is what gives it away; Host is not, the browser sends the
 * page's name there too. A request without Origin does not come from a web page and is not judged here.
 */

/** Pages served from this machine: a rebinding attacker cannot make a browser call its page one of these. */
const loopbackHost = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/;

/** `allowed` are origins as `mcp.allowed_origins` lists them; they are compared in the form browsers send. */
export function originAllowed(allowed: readonly string[]): (origin: string) => boolean {
  const listed = new Set(allowed.map(browserForm));
  return (origin) => {
    if (listed.has(origin)) return true;
    try {
      const url = new URL(origin);
      return (url.protocol === "http:" || url.protocol === "https:") && loopbackHost.test(url.hostname);
    } catch {
      return false; // `null` (a sandboxed frame, a file) or garbage
    }
  };
}

/** `https://App.example:443` as a browser sends it: `https://app.example`. */
const browserForm = (origin: string): string => new URL(origin).origin;
