/** Every CLI verb, in the order `platform --help` lists them. */
import { hookVerb } from "./hook.ts";
import { mcpVerb } from "./mcp.ts";
import { serveVerb } from "./serve.ts";
import type { Verb } from "./verb.ts";
import { vaultVerb } from "./vault.ts";
import { versionVerb } from "./version.ts";

export const verbs: Verb[] = [serveVerb, mcpVerb, vaultVerb, hookVerb, versionVerb];
