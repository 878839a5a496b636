/** Every CLI verb, in the order `platform --help` lists them. */
import { auditVerb } from "./audit.ts";
import { catalogVerb } from "./catalog.ts";
import { clusterVerb } from "./cluster.ts";
import { hookVerb } from "./hook.ts";
import { identityVerb } from "./identity.ts";
import { lspVerb } from "./lsp.ts";
import { mcpVerb } from "./mcp.ts";
import { serveVerb } from "./serve.ts";
import type { Verb } from "./verb.ts";
import { vaultVerb } from "./vault.ts";
import { versionVerb } from "./version.ts";

export const verbs: Verb[] = [serveVerb, mcpVerb, identityVerb, vaultVerb, hookVerb, catalogVerb, clusterVerb, auditVerb, lspVerb, versionVerb];
