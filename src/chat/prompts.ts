/** The chat server's prompts. */
import type { Prompt } from "../mcp/define.ts";

export const chatPrompts: Prompt[] = [];
