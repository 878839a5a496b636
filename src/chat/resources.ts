/** The chat server's resources. */
import type { Resource, ResourceTemplate } from "../mcp/define.ts";
import type { ChatService } from "./service.ts";

export const chatResources = (_chat: ChatService): { resources: Resource[]; templates: ResourceTemplate[] } => ({ resources: [], templates: [] });
