/**
 * Named MCP servers and what each offers. Capabilities register into a server by name; the host serves every
 * server over stdio and Streamable HTTP. A name registered twice throws at start-up, not at call time.
 */
import type { ToolFailure } from "./call.ts";
import type { Prompt, Resource, ResourceTemplate, Tool } from "./define.ts";

export interface McpServerInfo {
  name: string;
  title?: string;
  version: string;
  instructions?: string;
}

/** How a server presents itself beyond its info: its own wording of failed tool calls. */
export interface McpServerOptions extends Omit<McpServerInfo, "name" | "version"> {
  /** Renders invalid arguments and thrown errors as the result a client reads; plain text by default. */
  failure?: ToolFailure;
}

export interface McpRegistryOptions {
  /**
   * Awaited after every tool call, before its result is sent; a rejection makes the result an error. The runtime
   * passes the actor system's `committed()`: a tool's writes may ride in the turn's group commit, and MCP answers
   * on a stream of its own, after the HTTP handler has returned.
   */
  settled?: () => Promise<void>;
}

const nothingPending = () => Promise.resolve();

export class McpServerSpec {
  readonly tools = new Map<string, Tool>();
  readonly resources = new Map<string, Resource>();
  readonly prompts = new Map<string, Prompt>();
  readonly templates = new Map<string, ResourceTemplate>();
  failure?: ToolFailure;
  readonly #sessionEnd = new Set<(session: string) => void>();

  constructor(
    readonly info: McpServerInfo,
    readonly settled: () => Promise<void> = nothingPending,
  ) {}

  /** Called when an MCP session (an HTTP session, a stdio connection) of this server ends. */
  onSessionEnd(listener: (session: string) => void): this {
    this.#sessionEnd.add(listener);
    return this;
  }

  /** Tells the session-end listeners; one that throws is reported and does not keep the others from hearing. */
  endSession(session: string, onError: (error: unknown) => void): void {
    for (const listener of this.#sessionEnd) {
      try {
        listener(session);
      } catch (error) {
        onError(error);
      }
    }
  }

  tool(...tools: Tool[]): this {
    for (const tool of tools) this.#add(this.tools, tool.name, tool, "tool");
    return this;
  }

  resource(...resources: Resource[]): this {
    for (const resource of resources) this.#add(this.resources, resource.uri, resource, "resource");
    return this;
  }

  template(...templates: ResourceTemplate[]): this {
    for (const template of templates) this.#add(this.templates, template.uriTemplate, template, "resource template");
    return this;
  }

  prompt(...prompts: Prompt[]): this {
    for (const prompt of prompts) this.#add(this.prompts, prompt.name, prompt, "prompt");
    return this;
  }

  #add<T>(map: Map<string, T>, key: string, value: T, what: string) {
    if (map.has(key)) throw new Error(`MCP server ${this.info.name}: ${what} ${key} is registered twice`);
    map.set(key, value);
  }
}

export class McpRegistry {
  readonly #servers = new Map<string, McpServerSpec>();

  constructor(
    readonly version: string,
    private readonly options: McpRegistryOptions = {},
  ) {}

  /** The server of that name, created on first use. */
  server(name: string, { failure, ...info }: McpServerOptions = {}): McpServerSpec {
    if (!/^[a-z][a-z0-9-]*$/.test(name)) throw new Error(`MCP server name ${JSON.stringify(name)} must be lowercase letters, digits and dashes`);
    let spec = this.#servers.get(name);
    if (!spec) this.#servers.set(name, (spec = new McpServerSpec({ name, version: this.version, ...info }, this.options.settled)));
    else Object.assign(spec.info, info);
    if (failure) spec.failure = failure;
    return spec;
  }

  get(name: string): McpServerSpec | undefined {
    return this.#servers.get(name);
  }

  names(): string[] {
    return [...this.#servers.keys()];
  }
}
