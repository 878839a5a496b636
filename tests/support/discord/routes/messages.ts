/** Messages, reactions and pins (Resources > Message; Resources > Channel > Pin Message). */
import { ApiError, checkLength, fail, invalidForm, unknown, type Route } from "../api.ts";
import { snowflake, timestampOf, type Json } from "../world.ts";
import { audit, channelOf, messageOf, messagesOf } from "./lookup.ts";

const textChannelTypes = new Set([0, 5, 10, 11, 12]);
const twoWeeksMs = 14 * 86_400_000;

function checkEmbeds(embeds: unknown): void {
  if (embeds === undefined || embeds === null) return;
  if (!Array.isArray(embeds)) fail(invalidForm("embeds", "BASE_TYPE_ARRAY", "Must be an array."));
  const list = embeds as Json[];
  if (list.length > 10) fail(invalidForm("embeds", "BASE_TYPE_MAX_LENGTH", "Must be 10 or fewer in length."));
  let total = 0;
  list.forEach((embed, i) => {
    if (embed.title?.length > 256) fail(invalidForm(`embeds.${i}.title`, "BASE_TYPE_MAX_LENGTH", "Must be 256 or fewer in length."));
    if (embed.description?.length > 4096) fail(invalidForm(`embeds.${i}.description`, "BASE_TYPE_MAX_LENGTH", "Must be 4096 or fewer in length."));
    if ((embed.fields?.length ?? 0) > 25) fail(invalidForm(`embeds.${i}.fields`, "BASE_TYPE_MAX_LENGTH", "Must be 25 or fewer in length."));
    total += (embed.title?.length ?? 0) + (embed.description?.length ?? 0) + (embed.footer?.text?.length ?? 0) + (embed.author?.name?.length ?? 0);
    for (const field of embed.fields ?? []) total += field.name.length + field.value.length;
  });
  if (total > 6000) fail(invalidForm("embeds", "MAX_EMBED_SIZE_EXCEEDED", "Embed size exceeds maximum size of 6000"));
}

const byId = (a: Json, b: Json) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1);

export const messageRoutes: Route[] = [
  {
    method: "GET",
    path: "/channels/:channel_id/messages",
    handler: ({ world, params, query }) => {
      channelOf(world, params.channel_id!);
      const limit = Number(query.get("limit") ?? 50);
      if (!Number.isInteger(limit) || limit < 1 || limit > 100) fail(invalidForm("limit", "NUMBER_TYPE_MAX", "int value should be less than or equal to 100."));
      const all = [...messagesOf(world, params.channel_id!)].sort(byId);
      const before = query.get("before");
      const after = query.get("after");
      const around = query.get("around");
      let page: Json[];
      if (after) page = all.filter((m) => BigInt(m.id) > BigInt(after)).slice(0, limit);
      else if (around) {
        const index = all.findIndex((m) => BigInt(m.id) >= BigInt(around));
        const start = Math.max(0, (index < 0 ? all.length : index) - Math.floor(limit / 2));
        page = all.slice(start, start + limit);
      } else page = all.filter((m) => !before || BigInt(m.id) < BigInt(before)).slice(-limit);
      return page.reverse();
    },
  },
  {
    method: "POST",
    path: "/channels/:channel_id/messages",
    bucket: { bucket: "messages-create" },
    handler: ({ world, params, body, files }) => {
      const channel = channelOf(world, params.channel_id!, true);
      if (!textChannelTypes.has(channel.type)) fail(new ApiError(400, 50008, "Cannot send messages in a non-text channel"));
      checkLength(body, "content", 0, 2000);
      checkEmbeds(body.embeds);
      if (!body.content && !body.embeds?.length && !files.length && !body.sticker_ids?.length) fail(new ApiError(400, 50006, "Cannot send an empty message"));
      const reference = body.message_reference;
      if (reference?.message_id && !messagesOf(world, channel.id).some((m) => m.id === reference.message_id) && reference.fail_if_not_exists !== false)
        fail(invalidForm("message_reference", "MESSAGE_REFERENCE_UNKNOWN_MESSAGE", "Unknown message"));
      const id = snowflake();
      const message: Json = {
        id,
        channel_id: channel.id,
        author: world.bot,
        content: body.content ?? "",
        timestamp: new Date(timestampOf(id)).toISOString(),
        edited_timestamp: null,
        tts: body.tts === true,
        mention_everyone: false,
        mentions: [],
        mention_roles: [],
        attachments: files.map((file, i) => ({
          id: snowflake(),
          filename: file.name,
          size: file.size,
          url: `https://cdn.discordapp.com/attachments/${channel.id}/${id}/${file.name}`,
          proxy_url: `https://media.discordapp.net/attachments/${channel.id}/${id}/${file.name}`,
          content_type: file.type.split(";")[0] || undefined,
          description: body.attachments?.[i]?.description,
        })),
        embeds: (body.embeds ?? []).map((embed: Json) => ({ type: "rich", ...embed })),
        pinned: false,
        type: reference?.message_id ? 19 : 0,
        flags: body.flags ?? 0,
        ...(reference?.message_id ? { message_reference: { type: 0, message_id: reference.message_id, channel_id: channel.id, guild_id: channel.guild_id } } : {}),
      };
      messagesOf(world, channel.id).push(message);
      channel.last_message_id = id;
      return message;
    },
  },
  {
    method: "POST",
    path: "/channels/:channel_id/messages/bulk-delete",
    handler: ({ world, params, body, reason }) => {
      const channel = channelOf(world, params.channel_id!, true);
      const ids: unknown = body.messages;
      if (!Array.isArray(ids) || ids.length < 2 || ids.length > 100) fail(invalidForm("messages", "BASE_TYPE_BAD_LENGTH", "Must be between 2 and 100 in length."));
      if ((ids as string[]).some((id) => Date.now() - timestampOf(id) > twoWeeksMs)) fail(new ApiError(400, 50034, "You can only bulk delete messages that are under 14 days old."));
      const messages = messagesOf(world, channel.id);
      world.messages.set(channel.id, messages.filter((m) => !(ids as string[]).includes(m.id)));
      audit(world, channel.guild_id, 73, channel.id, reason);
      return null;
    },
  },
  {
    method: "GET",
    path: "/channels/:channel_id/messages/:message_id",
    handler: ({ world, params }) => (channelOf(world, params.channel_id!), messageOf(world, params.channel_id!, params.message_id!)),
  },
  {
    method: "PATCH",
    path: "/channels/:channel_id/messages/:message_id",
    handler: ({ world, params, body }) => {
      channelOf(world, params.channel_id!, true);
      const message = messageOf(world, params.channel_id!, params.message_id!);
      if (message.author.id !== world.bot.id) fail(new ApiError(403, 50005, "Cannot edit a message authored by another user"));
      checkLength(body, "content", 0, 2000);
      checkEmbeds(body.embeds);
      if (body.content !== undefined) message.content = body.content;
      if (body.embeds !== undefined) message.embeds = body.embeds;
      message.edited_timestamp = new Date().toISOString();
      return message;
    },
  },
  {
    method: "DELETE",
    path: "/channels/:channel_id/messages/:message_id",
    handler: ({ world, params, reason }) => {
      const channel = channelOf(world, params.channel_id!, true);
      const message = messageOf(world, channel.id, params.message_id!);
      world.messages.set(channel.id, messagesOf(world, channel.id).filter((m) => m !== message));
      if (message.author.id !== world.bot.id) audit(world, channel.guild_id, 72, message.author.id, reason);
      return null;
    },
  },
  {
    method: "PUT",
    path: "/channels/:channel_id/messages/:message_id/reactions/:emoji/@me",
    bucket: { bucket: "reactions", limit: 1, windowMs: 250 },
    handler: ({ world, params }) => {
      channelOf(world, params.channel_id!, true);
      const message = messageOf(world, params.channel_id!, params.message_id!);
      const emoji = parseEmoji(world, params.emoji!);
      const reactions: Json[] = (message.reactions ??= []);
      const existing = reactions.find((r) => r.emoji.name === emoji.name && r.emoji.id === emoji.id);
      if (existing?.me) return null;
      if (existing) Object.assign(existing, { count: existing.count + 1, me: true });
      else reactions.push({ emoji, count: 1, count_details: { burst: 0, normal: 1 }, me: true, me_burst: false, burst_colors: [] });
      return null;
    },
  },
  ...["@me", ":user_id"].map(
    (who): Route => ({
      method: "DELETE",
      path: `/channels/:channel_id/messages/:message_id/reactions/:emoji/${who}`,
      bucket: { bucket: "reactions", limit: 1, windowMs: 250 },
      handler: ({ world, params }) => {
        channelOf(world, params.channel_id!, true);
        const message = messageOf(world, params.channel_id!, params.message_id!);
        const emoji = parseEmoji(world, params.emoji!);
        const reaction = (message.reactions ?? []).find((r: Json) => r.emoji.name === emoji.name && r.emoji.id === emoji.id);
        if (reaction) {
          reaction.count--;
          if (who === "@me") reaction.me = false;
          if (reaction.count <= 0) message.reactions = message.reactions.filter((r: Json) => r !== reaction);
        }
        return null;
      },
    }),
  ),
  ...(["PUT", "DELETE"] as const).map(
    (method): Route => ({
      method,
      path: "/channels/:channel_id/messages/pins/:message_id",
      handler: ({ world, params, reason }) => {
        const channel = channelOf(world, params.channel_id!, true);
        const message = messageOf(world, channel.id, params.message_id!);
        message.pinned = method === "PUT";
        audit(world, channel.guild_id, method === "PUT" ? 74 : 75, message.author.id, reason);
        return null;
      },
    }),
  ),
];

/** A reaction's emoji in a route: the URL-encoded character, or `name:id` for a custom emoji the bot can use. */
function parseEmoji(world: { emojis: Map<string, Json[]> }, text: string): { id: string | null; name: string } {
  const custom = /^(\w{2,32}):(\d{17,19})$/.exec(text);
  if (!custom) {
    if (!text || /^[\w:]+$/.test(text)) fail(unknown.emoji());
    return { id: null, name: text };
  }
  const known = [...world.emojis.values()].flat().some((emoji) => emoji.id === custom[2]);
  if (!known) fail(unknown.emoji());
  return { id: custom[2]!, name: custom[1]! };
}
