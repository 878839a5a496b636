import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { catalogFile, exportCatalog } from "../../scripts/export-tools.ts";

// The 21 tools the original server offered, by the names its users know.
const names = [
  "infra", "infra_environment_check", "infra_version", "infra_workspace_list",
  "iac_complete", "iac_format_lsp", "iac_hover", "iac_lsp_status", "iac_validate_lsp",
  "infra_analyze", "infra_file_check", "infra_lsp_debug", "infra_lsp_init", "infra_workspace_info", "infra_workspace_setup",
  "infra_recommendations", "infra_security_scan",
  "vcs_clone_repo", "vcs_get_iac_config", "vcs_list_iac_files", "vcs_prepare_workspace",
];

test("the committed tools.json is what the registered tools export (run `bun scripts/export-tools.ts` after changing a tool)", async () => {
  expect(readFileSync(catalogFile, "utf8")).toBe(await exportCatalog());
});

test("the catalog lists the 21 tools with their parameters and categories", () => {
  const catalog = JSON.parse(readFileSync(catalogFile, "utf8"));
  expect(catalog.server).toMatchObject({ name: "infra" });
  expect(catalog.tool_count).toBe(21);
  expect(catalog.tools.map((t: { name: string }) => t.name).sort()).toEqual([...names].sort());
  const hover = catalog.tools.find((t: { name: string }) => t.name === "iac_hover");
  expect(hover).toMatchObject({ category: "language server", parameters: [{ name: "path", type: "string", required: true }, { name: "line", type: "integer", required: true }, { name: "character", type: "integer", required: true }] });
  expect(catalog.categories.flatMap((c: { tools: string[] }) => c.tools).length).toBe(21);
});
