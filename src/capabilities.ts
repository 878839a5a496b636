/** Every capability the runtime hosts, in start-up order. Adding one is one line here. */
import type { CapabilityFactory } from "./capability.ts";
import { platformCapability } from "./platform/tools.ts";
import { vaultCapability } from "./vault/capability.ts";

export const capabilities: CapabilityFactory[] = [platformCapability, vaultCapability];
