/**
 * How a chat tool is declared: its schemas, what kind of call it is (read, write, or destructive: needs
 * `confirm`), the guild and channel it touches (for the allowlist and the log line), checks the schema cannot
 * state, and the Discord operation. `toTool` makes the MCP tool: it logs one line per call, answers the result as
 * structured content, and lets a ChatError through for the server's failure renderer.
 */
import type { REST } from "@discordjs/rest";
import type { Static, TObject } from "@sinclair/typebox";
import type { Tool } from "../../mcp/define.ts";
import { ChatError, type CallScope } from "../errors.ts";
import type { ChatService } from "../service.ts";

export type ToolKind = "read" | "write" | "destructive";

export interface ChatToolSpec<S extends TObject = TObject, O extends TObject = TObject> {
  name: string;
  title: string;
  description: string;
  kind: ToolKind;
  input: S;
  output: O;
  scope(args: Static<S>): CallScope;
  /** Limits beyond the schema (an embed total, a message's age); throws invalidInput before any request. */
  check?(args: Static<S>): void;
  run(args: Static<S>, rest: REST, chat: ChatService): Promise<Static<O>>;
}

export const chatTool = <S extends TObject, O extends TObject>(spec: ChatToolSpec<S, O>): ChatToolSpec => spec as unknown as ChatToolSpec;

export function toTool(spec: ChatToolSpec, chat: ChatService): Tool {
  return {
    name: spec.name,
    title: spec.title,
    description: spec.description,
    input: spec.input,
    output: spec.output,
    annotations: {
      title: spec.title,
      readOnlyHint: spec.kind === "read",
      destructiveHint: spec.kind === "destructive",
      openWorldHint: true,
    },
    async handler(args) {
      const started = performance.now();
      const scope = spec.scope(args);
      const line = { tool: spec.name, guildId: scope.guildId, channelId: scope.channelId };
      try {
        if (spec.kind === "destructive") chat.requireConfirm((args as { confirm?: boolean }).confirm);
        spec.check?.(args);
        const result = await chat.call(scope, (rest) => spec.run(args, rest, chat));
        chat.log.info("chat tool call", { ...line, duration: elapsed(started), success: true });
        // Compact: the same JSON is in structuredContent, and a model reads it as well without indentation.
        return { content: [{ type: "text", text: JSON.stringify(result) }], structuredContent: result as Record<string, unknown> };
      } catch (error) {
        const type = error instanceof ChatError ? error.type : "InternalError";
        chat.log[type === "InternalError" ? "error" : "info"]("chat tool call", { ...line, duration: elapsed(started), success: false, errorType: type, error });
        throw error;
      }
    },
  };
}

const elapsed = (since: number) => Math.round(performance.now() - since);
