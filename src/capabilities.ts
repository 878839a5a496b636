/** Every capability the runtime hosts, in start-up order. Adding one is one line here. */
import { a2aCapability } from "./a2a/capability.ts";
import { authzCapability } from "./authz/capability.ts";
import { browserCapability } from "./browser/capability.ts";
import type { CapabilityFactory } from "./capability.ts";
import { catalogCapability } from "./catalog/capability.ts";
import { chatCapability } from "./chat/capability.ts";
import { infraCapability } from "./infra/capability.ts";
import { platformCapability } from "./platform/tools.ts";
import { vaultCapability } from "./vault/capability.ts";

export const capabilities: CapabilityFactory[] = [
  platformCapability,
  authzCapability,
  a2aCapability,
  vaultCapability,
  catalogCapability,
  chatCapability,
  infraCapability,
  browserCapability,
];
