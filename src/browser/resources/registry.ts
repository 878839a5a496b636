/**
 * The 25 resources: the registry index and 24 documents, served under /resources/<path> and as MCP resources
 * (`browser://resources/<path>`); the three prompts are also MCP prompts.
 */
import { Type } from "@sinclair/typebox";
import { definePrompt, type Prompt, type Resource } from "../../mcp/define.ts";
import { version } from "../../version.ts";
import { documentationDocs, exampleDocs, quickstartDocs, strategyDocs } from "./guides.ts";
import { registryVersion, type ResourceDoc } from "./model.ts";
import { promptDocs } from "./prompts.ts";
import { toolDocs } from "./tools.ts";

export const documents: ResourceDoc[] = [...toolDocs, ...quickstartDocs, ...exampleDocs, ...documentationDocs, ...promptDocs, ...strategyDocs];

export const index = {
  spec_version: registryVersion,
  name: "platform-browser-resources",
  server_version: version,
  description: "Guides, quickstarts, examples, docs and prompts for testing web pages with the platform's browser server.",
  resource_count: documents.length + 1,
  categories: [...new Set(documents.map((d) => d.category))],
  resources: [
    { id: "index", name: "Resource registry", category: "additional", path: "index.json", description: "This index.", tags: ["registry"] },
    ...documents.map(({ id, name, category, path, description, tags }) => ({ id, name, category, path, description, tags })),
  ],
};

/** The JSON served at a registry path, or undefined. */
export function resourceAt(path: string): object | undefined {
  if (path === "index.json") return index;
  const document = documents.find((d) => d.path === path);
  return document && { spec_version: registryVersion, ...document };
}

export const mcpResources = (): Resource[] =>
  index.resources.map(({ path, name, description }) => ({
    uri: `browser://resources/${path}`,
    name,
    description,
    mimeType: "application/json",
    read: async () => JSON.stringify(resourceAt(path), null, 2),
  }));

export const mcpPrompts = (): Prompt[] =>
  promptDocs.map((document) =>
    definePrompt({
      name: document.id,
      title: document.name,
      description: document.description,
      arguments: Type.Object(
        Object.fromEntries(
          document.prompt!.arguments.map((a) => [a.name, a.required ? Type.String({ description: a.description }) : Type.Optional(Type.String({ description: a.description }))]),
        ) as Record<string, ReturnType<typeof Type.String>>,
      ),
      async get(args) {
        const text = document.prompt!.template.replace(/\{\{(\w+)\}\}/g, (_m, name: string) => (args as Record<string, string | undefined>)[name] ?? "not given");
        return { description: document.description, messages: [{ role: "user", content: { type: "text", text } }] };
      },
    }),
  );
