/** Every external tool the tests and benchmarks need, pinned. Adding one is one entry here. */
import { debian, goBuild, goInstall, pythonVenv, type Recipe } from "./recipe.ts";

export const tools: Recipe[] = [
  debian("chromium", ["chromium"], { chromium: "/usr/bin/chromium" }, "the browser the browser server and the setup-page test drive"),
  goBuild(
    "tofu",
    { module: "github.com/opentofu/opentofu", version: "v1.12.6", command: "github.com/opentofu/opentofu/cmd/tofu" },
    "OpenTofu, the binary the infra server runs",
  ),
  goInstall("terraform-ls", "github.com/hashicorp/terraform-ls", "v0.39.0", "the language server behind the infra server's LSP tools"),
  pythonVenv("checkov", "checkov", "3.3.30", ["checkov"], "the scanner the infra security rules are checked against"),
];
