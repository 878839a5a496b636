/**
 * The infra server's catalog file, tools.json, as the original server published it: server name and version,
 * tool_count, each tool's name, summary, category, parameters and inputSchema, and the categories. It is built
 * from the registered tools, so it cannot say anything the server does not do.
 */
import type { TSchema } from "@sinclair/typebox";
import type { McpServerSpec } from "../mcp/registry.ts";
import { categoryOf } from "./tools.ts";

const typeOf = (schema: TSchema): string => {
  if (schema.type) return String(schema.type);
  if (schema.anyOf) return [...new Set((schema.anyOf as TSchema[]).map((s) => (s.const !== undefined ? typeof s.const : typeOf(s))))].join("|");
  return "any";
};

/** The first sentence of a description. */
const summaryOf = (description: string) => /^.*?[.!?](?=\s|$)/.exec(description)?.[0] ?? description;

export function toolCatalog(spec: McpServerSpec) {
  const tools = [...spec.tools.values()].map((tool) => {
    const properties = (tool.input.properties ?? {}) as Record<string, TSchema>;
    const required = new Set<string>(tool.input.required ?? []);
    return {
      name: tool.name,
      summary: summaryOf(tool.description),
      category: categoryOf[tool.name] ?? "other",
      // A parameter with a default is filled in by the server when left out, so a caller need not give it.
      parameters: Object.entries(properties).map(([name, schema]) => ({ name, type: typeOf(schema), required: required.has(name) && schema.default === undefined })),
      inputSchema: JSON.parse(JSON.stringify(tool.input)) as unknown,
    };
  });
  const categories = [...new Set(tools.map((t) => t.category))].map((name) => ({ name, tools: tools.filter((t) => t.category === name).map((t) => t.name) }));
  return { server: { name: spec.info.name, version: spec.info.version }, tool_count: tools.length, tools, categories };
}
