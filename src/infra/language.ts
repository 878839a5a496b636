/**
 * The language tools: completions, hovers, formatting and diagnostics for a file in the workspace root, from
 * terraform-ls, with `tofu fmt` and our HCL parser standing in for formatting and validation when it is absent.
 */
import { readFileSync, statSync, writeFileSync } from "node:fs";
import type { Config } from "../config.ts";
import { automationEnv, requireBinary } from "./binary.ts";
import { InfraError } from "./errors.ts";
import { parseHcl } from "./hcl.ts";
import { applyEdits, type LanguageServer } from "./lsp.ts";
import type { WorkspacePaths } from "./paths.ts";
import { tail } from "./run.ts";
import type { Completions, DocumentDiagnostics, Formatting, HoverResult } from "./views.ts";

export class LanguageTools {
  constructor(
    private readonly paths: WorkspacePaths,
    readonly lsp: LanguageServer,
    private readonly config: Config["infra"],
  ) {}

  /** The document a language tool works on: an existing .tf/.tfvars file inside the root. */
  #document(path: string): string {
    const file = this.paths.existing(path, "file");
    if (!statSync(file).isFile() || !/\.(tf|tofu|tfvars)$/.test(file)) throw new InfraError("INVALID_ARGUMENT", `${path} is not a .tf, .tofu or .tfvars file`);
    return file;
  }

  async complete(path: string, line: number, character: number): Promise<Completions> {
    const file = this.#document(path);
    const items = await this.lsp.complete(file, line, character);
    return {
      path: this.paths.relative(file),
      position: { line, character },
      items: items.slice(0, 200).map((item) => ({
        label: item.label,
        ...(item.kind ? { kind: completionKinds[item.kind] ?? `kind ${item.kind}` } : {}),
        ...(item.detail ? { detail: item.detail } : {}),
        ...(item.documentation ? { documentation: typeof item.documentation === "string" ? item.documentation : item.documentation.value } : {}),
        ...(item.textEdit && "newText" in item.textEdit ? { insert: item.textEdit.newText } : item.insertText ? { insert: item.insertText } : {}),
      })),
      truncated: items.length > 200,
    };
  }

  async hover(path: string, line: number, character: number): Promise<HoverResult> {
    const file = this.#document(path);
    return { path: this.paths.relative(file), position: { line, character }, hover: await this.lsp.hover(file, line, character) };
  }

  /** Formats a file with terraform-ls, or with `tofu fmt` when terraform-ls is not installed; writes it when asked. */
  async formatDocument(path: string, write: boolean): Promise<Formatting> {
    const file = this.#document(path);
    const text = readFileSync(file, "utf8");
    let formatted: string;
    let used: string;
    if (this.lsp.installed) {
      formatted = applyEdits(text, await this.lsp.format(file));
      used = "terraform-ls";
    } else {
      formatted = await this.#tofuFmt(text, file);
      used = `${requireBinary(this.config).name} fmt`;
    }
    const changed = formatted !== text;
    if (write && changed) writeFileSync(file, formatted);
    return { path: this.paths.relative(file), used, changed, written: write && changed, formatted };
  }

  async #tofuFmt(text: string, file: string): Promise<string> {
    const binary = requireBinary(this.config);
    const child = Bun.spawn([binary.path, "fmt", "-no-color", "-"], { stdin: new Blob([text]), stdout: "pipe", stderr: "pipe", env: automationEnv() });
    const [out, err, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
    if (code !== 0) throw new InfraError("SYNTAX_ERROR", `${binary.name} fmt could not format ${this.paths.relative(file)}`, { stderrTail: tail(err) });
    return out;
  }

  /** Diagnostics from terraform-ls, or from our own parser when it is not installed. */
  async validateDocument(path: string): Promise<DocumentDiagnostics> {
    const file = this.#document(path);
    if (this.lsp.installed) {
      const { diagnostics, published } = await this.lsp.diagnostics(file);
      return {
        path: this.paths.relative(file),
        used: "terraform-ls",
        valid: !diagnostics.some((d) => d.severity === 1),
        // LSP 3.18 lets a message be markup; the text is what a reader wants.
        diagnostics: diagnostics.map((d) => ({ ...d, message: typeof d.message === "string" ? d.message : d.message.value })),
        published,
      };
    }
    const parsed = await parseHcl(this.paths.relative(file), readFileSync(file, "utf8"));
    const diagnostics = parsed.errors.map((e) => ({
      range: { start: { line: e.line - 1, character: e.column - 1 }, end: { line: e.line - 1, character: e.column - 1 } },
      severity: 1,
      source: "hcl parser",
      message: e.message,
    }));
    return { path: parsed.path, used: "hcl parser", valid: diagnostics.length === 0, diagnostics };
  }

}

/** LSP CompletionItemKind numbers, by name. */
const completionKinds: Record<number, string> = {
  1: "text", 2: "method", 3: "function", 4: "constructor", 5: "field", 6: "variable", 7: "class", 8: "interface", 9: "module",
  10: "property", 11: "unit", 12: "value", 13: "enum", 14: "keyword", 15: "snippet", 16: "color", 17: "file", 18: "reference",
  19: "folder", 20: "enum member", 21: "constant", 22: "struct", 23: "event", 24: "operator", 25: "type parameter",
};

