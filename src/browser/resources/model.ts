/**
 * The browser server's resource registry: documents about testing with this product, each with examples that
 * run against it. An example is a playbook, an MCP tool call or an HTTP request; `{{origin}}` in an example
 * stands for the site under test. The registry test runs every example.
 */
export type Example =
  | { title: string; kind: "playbook"; playbook: Record<string, unknown> }
  | { title: string; kind: "tool"; tool: string; arguments: Record<string, unknown> }
  | { title: string; kind: "http"; method: "GET" | "POST"; path: string; body?: Record<string, unknown> };

export interface ResourceDoc {
  id: string;
  name: string;
  category: "tools" | "quickstarts" | "examples" | "documentation" | "prompts" | "additional";
  path: string;
  description: string;
  tags: string[];
  sections: { title: string; body: string }[];
  examples: Example[];
  /** Prompts only: the text an assistant is given, with {{argument}} placeholders. */
  prompt?: { arguments: { name: string; description: string; required: boolean }[]; template: string };
}

export const registryVersion = "2.8.0";
