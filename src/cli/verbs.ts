/** Every CLI verb, in the order `platform --help` lists them. */
import { catalogVerb } from "./catalog.ts";
import { identityVerb } from "./identity.ts";
import { mcpVerb } from "./mcp.ts";
import { serveVerb } from "./serve.ts";
import type { Verb } from "./verb.ts";
import { versionVerb } from "./version.ts";

export const verbs: Verb[] = [serveVerb, mcpVerb, identityVerb, catalogVerb, versionVerb];
