/**
 * The agent card: who an agent is, where it listens, what task types it runs and how callers authenticate.
 * `toDict()` is the native wire form served at /.well-known/agent.json; the SPIFFE id rides in `extensions`.
 */
import { type Static, Type } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { ValueError } from "./errors.ts";

const JsonModes = () => ["application/json"];

const CapabilitySchema = Type.Object({
  name: Type.String({ minLength: 1 }),
  description: Type.String(),
  inputModes: Type.Optional(Type.Array(Type.String())),
  outputModes: Type.Optional(Type.Array(Type.String())),
  parameters: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
});
const AuthSchemeSchema = Type.Object({
  type: Type.String({ minLength: 1 }),
  description: Type.Optional(Type.String()),
  metadata: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
});
const AgentCardSchema = Type.Object({
  name: Type.String({ minLength: 1 }),
  description: Type.String(),
  url: Type.String(),
  version: Type.Optional(Type.String({ minLength: 1 })),
  capabilities: Type.Optional(Type.Array(CapabilitySchema)),
  authentication: Type.Optional(Type.Object({ schemes: Type.Array(AuthSchemeSchema) })),
  extensions: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
});
export type CapabilityDict = Required<Static<typeof CapabilitySchema>>;
export type AuthSchemeDict = Static<typeof AuthSchemeSchema> & { metadata: Record<string, unknown> };
export type AgentCardDict = Required<Omit<Static<typeof AgentCardSchema>, "capabilities" | "authentication">> & {
  capabilities: CapabilityDict[];
  authentication: { schemes: AuthSchemeDict[] };
};

/** A task type the agent runs; `parameters` is the JSON Schema of its payload. */
export class Capability {
  readonly name: string;
  readonly description: string;
  readonly inputModes: string[];
  readonly outputModes: string[];
  readonly parameters: Record<string, unknown>;

  constructor(fields: Static<typeof CapabilitySchema>) {
    this.name = fields.name;
    this.description = fields.description;
    this.inputModes = fields.inputModes ?? JsonModes();
    this.outputModes = fields.outputModes ?? JsonModes();
    this.parameters = fields.parameters ?? { type: "object" };
  }

  toDict(): CapabilityDict {
    const { name, description, inputModes, outputModes, parameters } = this;
    return { name, description, inputModes, outputModes, parameters };
  }
}

export class AuthScheme {
  readonly type: string;
  readonly description?: string;
  readonly metadata: Record<string, unknown>;

  constructor(fields: Static<typeof AuthSchemeSchema>) {
    this.type = fields.type;
    this.description = fields.description;
    this.metadata = fields.metadata ?? {};
  }

  toDict(): AuthSchemeDict {
    return { type: this.type, ...(this.description === undefined ? {} : { description: this.description }), metadata: this.metadata };
  }
}

export interface AgentCardFields {
  name: string;
  description: string;
  url: string;
  version?: string;
  capabilities?: (Capability | Static<typeof CapabilitySchema>)[];
  authentication?: { schemes: (AuthScheme | Static<typeof AuthSchemeSchema>)[] };
  extensions?: Record<string, unknown>;
}

export class AgentCard {
  readonly name: string;
  readonly description: string;
  readonly url: string;
  readonly version: string;
  readonly capabilities: Capability[];
  readonly authentication: { schemes: AuthScheme[] };
  readonly extensions: Record<string, unknown>;

  constructor(fields: AgentCardFields) {
    if (!/^https?:\/\//.test(fields.url)) throw new ValueError(`Agent card url must start with http:// or https://, got ${JSON.stringify(fields.url)}`);
    this.name = fields.name;
    this.description = fields.description;
    this.url = fields.url;
    this.version = fields.version ?? "1.0.0";
    this.capabilities = (fields.capabilities ?? []).map((c) => (c instanceof Capability ? c : new Capability(c)));
    this.authentication = {
      schemes: (fields.authentication?.schemes ?? []).map((s) => (s instanceof AuthScheme ? s : new AuthScheme(s))),
    };
    this.extensions = fields.extensions ?? {};
  }

  /** A card for a workload with a SPIFFE identity; callers authenticate with it over mTLS unless told otherwise. */
  static fromConfig(config: {
    name: string;
    description: string;
    url: string;
    spiffeId: string;
    version?: string;
    capabilities?: (Capability | Static<typeof CapabilitySchema>)[];
    authSchemes?: (AuthScheme | Static<typeof AuthSchemeSchema>)[];
  }): AgentCard {
    const { spiffeId, authSchemes, ...rest } = config;
    return new AgentCard({
      ...rest,
      authentication: {
        schemes: authSchemes ?? [new AuthScheme({ type: "spiffe", description: "SPIFFE workload identity (X.509 SVID over mTLS)", metadata: { spiffeId } })],
      },
      extensions: { spiffeId },
    });
  }

  static fromDict(dict: unknown): AgentCard {
    const error = Value.Errors(AgentCardSchema, dict).First();
    if (error) throw new ValueError(`Invalid agent card at ${error.path || "/"}: ${error.message}`);
    return new AgentCard(dict as Static<typeof AgentCardSchema>);
  }

  static fromJSON(json: string): AgentCard {
    let parsed: unknown;
    try {
      parsed = JSON.parse(json);
    } catch (error) {
      throw new ValueError(`Agent card is not valid JSON: ${(error as Error).message}`);
    }
    return AgentCard.fromDict(parsed);
  }

  toDict(): AgentCardDict {
    return {
      name: this.name,
      description: this.description,
      url: this.url,
      version: this.version,
      capabilities: this.capabilities.map((c) => c.toDict()),
      authentication: { schemes: this.authentication.schemes.map((s) => s.toDict()) },
      extensions: this.extensions,
    };
  }

  /** The card as JSON text (`JSON.stringify(card)` gives the same document). */
  toJSON(): AgentCardDict {
    return this.toDict();
  }

  getSpiffeId(): string | undefined {
    const id = this.extensions.spiffeId;
    return typeof id === "string" && id ? id : undefined;
  }

  hasCapability(name: string): boolean {
    return this.capabilities.some((c) => c.name === name);
  }

  getCapability(name: string): Capability | undefined {
    return this.capabilities.find((c) => c.name === name);
  }
}
