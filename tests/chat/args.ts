/**
 * Valid arguments for any chat tool, made from its own input schema: the smallest value each field accepts,
 * with named ids filled in (`guildId`, `channelId`, ...) so a suite can aim every tool at one place.
 */
import type { TSchema } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { chatTools } from "../../src/chat/tools/all.ts";
import type { ChatToolSpec } from "../../src/chat/tools/tool.ts";
import { snowflake } from "../support/discord/world.ts";

const tomorrow = () => new Date(Date.now() + 86_400_000).toISOString();
const candidates = () => [snowflake(), "aGVsbG8gd29ybGQ=", "https://example.com/image.png", tomorrow(), "file.txt", "text/plain", "name", "x"];

function valueFor(schema: TSchema, key: string, ids: Record<string, string>): unknown {
  if (ids[key] !== undefined && Value.Check(schema, ids[key])) return ids[key];
  if (schema.anyOf) {
    const literal = (schema.anyOf as TSchema[]).find((option) => option.const !== undefined);
    return literal ? literal.const : valueFor(schema.anyOf[0], key, ids);
  }
  switch (schema.type) {
    case "object":
      return argsFor(schema, ids);
    case "array":
      return Array.from({ length: schema.minItems ?? 1 }, () => valueFor(schema.items, key, {}));
    case "boolean":
      return true;
    case "integer":
    case "number":
      return Math.min(schema.maximum ?? Infinity, Math.max(schema.minimum ?? 1, 1));
    case "null":
      return null;
    default: {
      const fits = candidates().find((candidate) => Value.Check(schema, candidate));
      return fits ?? "x".repeat(schema.minLength ?? 1);
    }
  }
}

/** The required fields of `schema` (and `confirm: true` where a tool takes it), ids taken from `ids` by name. */
export function argsFor(schema: TSchema, ids: Record<string, string> = {}): Record<string, unknown> {
  const args: Record<string, unknown> = {};
  for (const [key, property] of Object.entries<TSchema>(schema.properties ?? {}))
    if (schema.required?.includes(key) || key === "confirm" || ids[key] !== undefined) args[key] = valueFor(property, key, ids);
  return args;
}

const later = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString();

/** Extra fields a tool's own checks ask for beyond its schema's required ones. */
const extra: Record<string, Record<string, unknown>> = {
  search_messages: { query: "x" },
  send_rich_message: { embed: { title: "x" } },
  edit_message: { content: "x" },
  modify_channel: { name: "x" },
  modify_server: { name: "renamed" },
  list_webhooks: { guildId: snowflake() },
  send_webhook_message: { content: "x" },
  modify_role: { name: "x" },
  modify_emoji: { name: "renamed" },
  modify_sticker: { name: "renamed" },
  create_scheduled_event: { place: "external", location: "Town hall", startTime: later(1), endTime: later(2) },
  modify_scheduled_event: { name: "x" },
  create_automod_rule: { trigger: "keyword", keywords: ["x"] },
  modify_automod_rule: { name: "x" },
  create_application_command: { description: "x" },
  modify_application_command: { description: "x" },
  bulk_overwrite_commands: { commands: [{ name: "x", description: "x" }] },
};

export const everyTool = (ids: Record<string, string> = {}): { spec: ChatToolSpec; args: Record<string, unknown> }[] =>
  chatTools.map((spec) => ({ spec, args: { ...argsFor(spec.input, ids), ...extra[spec.name] } }));
