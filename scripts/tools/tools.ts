/** Every external tool the tests and benchmarks need, pinned. Adding one is one entry here. */
import { debian, goInstall, type Recipe } from "./recipe.ts";

export const tools: Recipe[] = [
  debian("chromium", ["chromium"], { chromium: "/usr/bin/chromium" }, "the browser the browser server and the setup-page test drive"),
  goInstall("opa", "github.com/open-policy-agent/opa", "v1.22.2", "real OPA, beside the embedded engine in the Rego conformance, REST differential tests and the authz bench"),
];
