/** Every chat tool, family by family, in the order they are listed. */
import type { ChatToolSpec } from "./tool.ts";

export const chatTools: ChatToolSpec[] = [];
