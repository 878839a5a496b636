/**
 * What a capability hands the MCP host: tools, resources, resource templates and prompts, each declared once
 * with TypeBox so the JSON Schema a client lists and the validation a call gets come from the same value.
 * Nothing here names a transport.
 */
import type { Static, TObject, TString } from "@sinclair/typebox";
import type { CallToolResult, GetPromptResult, LoggingLevel, ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";

export interface ToolContext {
  /** Aborted when the client cancels the call or its connection goes away. */
  signal: AbortSignal;
  /** Reports progress as MCP progress notifications; a no-op when the client did not ask for progress. */
  progress(update: { progress: number; total?: number; message?: string }): Promise<void>;
  /** The verified identity of the caller, when the transport established one. */
  caller?: string;
  /**
   * The MCP session the call belongs to (one per Streamable HTTP session, one per stdio connection); absent when
   * the tool is reached another way (an A2A task). State kept per session ends with `McpServerSpec.onSessionEnd`.
   */
  session?: string;
  /** Sends an MCP log notification to the client, at or above the level it set (info until it sets one); a no-op elsewhere. */
  log?(level: LoggingLevel, data: unknown): Promise<void>;
}

/**
 * A tool. `output` is its outputSchema: a successful result's structuredContent must match it, and a tool that
 * answers structured content must declare one (the host answers an error result otherwise).
 */
export interface Tool<S extends TObject = TObject> {
  name: string;
  title?: string;
  description: string;
  input: S;
  output?: TObject;
  annotations?: ToolAnnotations;
  /** A thrown error becomes a result with `isError: true` for the model to read; it is not a protocol fault. */
  handler(args: Static<S>, context: ToolContext): Promise<CallToolResult>; // method syntax: any Tool<S> fits Tool[]
}

/** Who is asking, for a resource read, a prompt or a completion: what a tool sees of its caller and session. */
export interface RequestContext {
  caller?: string;
  session?: string;
}

/**
 * Calls `changed` whenever the resource's content changes, until the returned function is called. A resource (or
 * template) with `watch` can be subscribed to (resources/subscribe), and subscribers get resources/updated.
 */
export type Watch = (changed: () => void) => () => void;

export interface Resource {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  read(context: RequestContext): Promise<string | Uint8Array>;
  watch?: Watch;
}

/** Completes one argument (of a prompt or a resource template) from what the user typed so far. */
export type Completer = (typed: string, context: RequestContext) => Promise<string[]>;

/** Resources addressed by an RFC 6570 template (`chat://guilds/{guildId}/channels`). */
export interface ResourceTemplate {
  uriTemplate: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  /** Reads the resource whose URI matched the template; throw ResourceNotFound for one that does not exist. */
  read(uri: string, variables: Record<string, string>, context: RequestContext): Promise<string | Uint8Array>;
  /** The concrete resources it currently stands for, added to resources/list. */
  list?(context: RequestContext): Promise<{ uri: string; name: string; description?: string }[]>;
  complete?: Record<string, Completer>;
  /** Watches one of its resources (see Watch). */
  watch?(uri: string, variables: Record<string, string>, changed: () => void): () => void;
}

/** Prompt arguments are strings in MCP; an object of optional or required strings describes them. */
export type PromptArguments = TObject<Record<string, TString>>;

export interface Prompt<A extends PromptArguments = PromptArguments> {
  name: string;
  title?: string;
  description: string;
  arguments: A;
  complete?: Partial<Record<keyof Static<A> & string, Completer>>;
  get(args: Static<A>, context: RequestContext): Promise<GetPromptResult>;
}

/** A resource that does not exist (or that the caller may not see): answered as MCP's "resource not found". */
export class ResourceNotFound extends Error {
  override name = "ResourceNotFound";
  constructor(readonly uri: string) {
    super(`Resource not found: ${uri}`);
  }
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
