/**
 * Where the browser may go: http(s) only (never file:, javascript:, data: or chrome:), and hosts allowed by
 * `browser.allowed_hosts` and not denied by `browser.denied_hosts`. Globs match the host name, or host:port
 * (`*.example.com`, `localhost:*`). Used by the service before a navigation and by the driver for every request
 * a page makes, so a redirect or a link cannot lead elsewhere.
 */
import { BrowserServiceError } from "./errors.ts";

export interface HostRules {
  allowed: string[];
  denied: string[];
}

export class UrlPolicy {
  readonly #allowed: Bun.Glob[];
  readonly #denied: Bun.Glob[];

  constructor(readonly rules: HostRules) {
    this.#allowed = rules.allowed.map((glob) => new Bun.Glob(glob.toLowerCase()));
    this.#denied = rules.denied.map((glob) => new Bun.Glob(glob.toLowerCase()));
  }

  /** True when no rule limits anything: the driver then needs no request interception. */
  get open(): boolean {
    return this.#allowed.length === 0 && this.#denied.length === 0;
  }

  /** Whether a request to `url` may leave the browser (non-http schemes such as data: and blob: stay inside). */
  permits(url: URL): boolean {
    if (url.protocol !== "http:" && url.protocol !== "https:") return true;
    return this.#hostAllowed(url);
  }

  /** The URL to navigate to, or a ValidationError saying why it is refused. */
  check(raw: string): URL {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw BrowserServiceError.validation(`Not a URL: ${raw.slice(0, 200)}`, { url: raw.slice(0, 200) });
    }
    if (url.protocol !== "http:" && url.protocol !== "https:")
      throw BrowserServiceError.validation(`Only http and https URLs may be opened; ${url.protocol} is refused`, { url: raw.slice(0, 200), scheme: url.protocol });
    if (!this.#hostAllowed(url))
      throw BrowserServiceError.validation(`Navigation to ${url.host} is not allowed by browser.allowed_hosts / browser.denied_hosts`, {
        url: url.href,
        host: url.host,
      });
    return url;
  }

  #hostAllowed(url: URL): boolean {
    const names = [url.hostname.toLowerCase(), url.host.toLowerCase()];
    const matches = (globs: Bun.Glob[]) => globs.some((glob) => names.some((name) => glob.match(name)));
    if (matches(this.#denied)) return false;
    return this.#allowed.length === 0 || matches(this.#allowed);
  }
}
