/**
 * What a capability hands the MCP host: tools, resources and prompts, each declared once with TypeBox so the
 * JSON Schema a client lists and the validation a call gets come from the same value. Nothing here names a
 * transport.
 */
import type { Static, TObject, TString } from "@sinclair/typebox";
import type { CallToolResult, GetPromptResult, ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";

export interface ToolContext {
  /** Aborted when the client cancels the call or its connection goes away. */
  signal: AbortSignal;
  /** Reports progress as MCP progress notifications; a no-op when the client did not ask for progress. */
  progress(update: { progress: number; total?: number; message?: string }): Promise<void>;
  /** The verified identity of the caller, when the transport established one. */
  caller?: string;
}

export interface Tool<S extends TObject = TObject> {
  name: string;
  title?: string;
  description: string;
  input: S;
  annotations?: ToolAnnotations;
  /** A thrown error becomes a result with `isError: true` for the model to read; it is not a protocol fault. */
  handler(args: Static<S>, context: ToolContext): Promise<CallToolResult>; // method syntax: any Tool<S> fits Tool[]
}

export interface Resource {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  read(): Promise<string | Uint8Array>;
}

/** Prompt arguments are strings in MCP; an object of optional or required strings describes them. */
export type PromptArguments = TObject<Record<string, TString>>;

export interface Prompt<A extends PromptArguments = PromptArguments> {
  name: string;
  title?: string;
  description: string;
  arguments: A;
  get(args: Static<A>): Promise<GetPromptResult>;
}

export const defineTool = <S extends TObject>(tool: Tool<S>): Tool<S> => tool;
export const definePrompt = <A extends PromptArguments>(prompt: Prompt<A>): Prompt<A> => prompt;

/** The one-text-item result most tools answer with. */
export const textResult = (text: string): CallToolResult => ({ content: [{ type: "text", text }] });

/** A result carrying JSON both as text (for every client) and as structured content (for those that read it). */
export const jsonResult = (value: Record<string, unknown>): CallToolResult => ({
  content: [{ type: "text", text: JSON.stringify(value, null, 2) }],
  structuredContent: value,
});
