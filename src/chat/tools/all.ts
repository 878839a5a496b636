/** Every chat tool, family by family, in the order they are listed. */
import { channelTools } from "./channels.ts";
import { messageTools } from "./messages.ts";
import type { ChatToolSpec } from "./tool.ts";

export const chatTools: ChatToolSpec[] = [...messageTools, ...channelTools];
