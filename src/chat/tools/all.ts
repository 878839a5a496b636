/** Every chat tool, family by family, in the order they are listed. */
import { automodTools } from "./automod.ts";
import { channelTools } from "./channels.ts";
import { commandTools } from "./commands.ts";
import { eventTools } from "./events.ts";
import { emojiTools, stickerTools } from "./expressions.ts";
import { memberTools } from "./members.ts";
import { messageTools } from "./messages.ts";
import { moderationTools } from "./moderation.ts";
import { roleTools } from "./roles.ts";
import { serverTools } from "./server.ts";
import { threadTools } from "./threads.ts";
import type { ChatToolSpec } from "./tool.ts";

export const chatTools: ChatToolSpec[] = [
  ...messageTools,
  ...channelTools,
  ...threadTools,
  ...serverTools,
  ...memberTools,
  ...roleTools,
  ...moderationTools,
  ...emojiTools,
  ...stickerTools,
  ...eventTools,
  ...automodTools,
  ...commandTools,
];
