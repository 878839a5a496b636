/** Emojis and stickers (Resources > Emoji, Sticker): image data URIs for emojis, multipart uploads for stickers. */
import { ApiError, checkLength, fail, invalidForm, unknown, type Route } from "../api.ts";
import { snowflake, type Json, type World } from "../world.ts";
import { audit, guildOf } from "./lookup.ts";

const emojiKB = 256;
const stickerKB = 512;

const emojisOf = (world: World, guildId: string) => world.emojis.get(guildOf(world, guildId).id)!;
const stickersOf = (world: World, guildId: string) => world.stickers.get(guildOf(world, guildId).id)!;
const find = (list: Json[], id: string, missing: () => ApiError) => list.find((item) => item.id === id) ?? fail(missing());

function checkEmojiName(body: Json, required: boolean): void {
  if (body.name === undefined && !required) return;
  if (typeof body.name !== "string" || !/^\w{2,32}$/.test(body.name)) fail(invalidForm("name", "BASE_TYPE_BAD_LENGTH", "Must be between 2 and 32 in length."));
}

export const expressionRoutes: Route[] = [
  { method: "GET", path: "/guilds/:guild_id/emojis", handler: ({ world, params }) => emojisOf(world, params.guild_id!) },
  {
    method: "POST",
    path: "/guilds/:guild_id/emojis",
    handler: ({ world, params, body, reason }) => {
      const emojis = emojisOf(world, params.guild_id!);
      checkEmojiName(body, true);
      const image = /^data:image\/(png|jpeg|gif|webp);base64,([A-Za-z0-9+/]+=*)$/.exec(body.image ?? "");
      if (!image) fail(invalidForm("image", "IMAGE_INVALID", "Invalid image data"));
      if (Buffer.byteLength(image![2]!, "base64") > emojiKB * 1024) fail(invalidForm("image", "BINARY_TYPE_MAX_SIZE", `File cannot be larger than ${emojiKB}.0 kb.`));
      if (emojis.some((e) => e.name === body.name)) fail(new ApiError(400, 30008, "Maximum number of emojis reached (50)"));
      const emoji = { id: snowflake(), name: body.name, roles: body.roles ?? [], require_colons: true, managed: false, animated: image![1] === "gif", available: true, user: world.bot };
      emojis.push(emoji);
      audit(world, params.guild_id!, 60, emoji.id, reason);
      return emoji;
    },
  },
  {
    method: "PATCH",
    path: "/guilds/:guild_id/emojis/:emoji_id",
    handler: ({ world, params, body, reason }) => {
      const emoji = find(emojisOf(world, params.guild_id!), params.emoji_id!, unknown.emoji);
      checkEmojiName(body, false);
      if (body.name !== undefined) emoji.name = body.name;
      if (body.roles !== undefined) emoji.roles = body.roles ?? [];
      audit(world, params.guild_id!, 61, emoji.id, reason);
      return emoji;
    },
  },
  {
    method: "DELETE",
    path: "/guilds/:guild_id/emojis/:emoji_id",
    handler: ({ world, params, reason }) => {
      const emojis = emojisOf(world, params.guild_id!);
      const emoji = find(emojis, params.emoji_id!, unknown.emoji);
      emojis.splice(emojis.indexOf(emoji), 1);
      audit(world, params.guild_id!, 62, emoji.id, reason);
      return null;
    },
  },
  { method: "GET", path: "/guilds/:guild_id/stickers", handler: ({ world, params }) => stickersOf(world, params.guild_id!) },
  {
    method: "POST",
    path: "/guilds/:guild_id/stickers",
    handler: ({ world, params, body, files, reason }) => {
      const stickers = stickersOf(world, params.guild_id!);
      checkLength(body, "name", 2, 30, true);
      checkLength(body, "tags", 1, 200, true);
      if (body.description && (body.description.length < 2 || body.description.length > 100)) fail(invalidForm("description", "BASE_TYPE_BAD_LENGTH", "Must be between 2 and 100 in length."));
      const file = files[0] ?? fail(invalidForm("file", "BASE_TYPE_REQUIRED", "This field is required"));
      if (file.size > stickerKB * 1024) fail(invalidForm("file", "BINARY_TYPE_MAX_SIZE", `File cannot be larger than ${stickerKB}.0 kb.`));
      const format = file.name.endsWith(".json") ? 3 : file.name.endsWith(".gif") ? 4 : 1;
      const sticker = { id: snowflake(), name: body.name, description: body.description || null, tags: body.tags, type: 2, format_type: format, available: true, guild_id: params.guild_id, user: world.bot };
      stickers.push(sticker);
      audit(world, params.guild_id!, 90, sticker.id, reason);
      return sticker;
    },
  },
  {
    method: "PATCH",
    path: "/guilds/:guild_id/stickers/:sticker_id",
    handler: ({ world, params, body, reason }) => {
      const sticker = find(stickersOf(world, params.guild_id!), params.sticker_id!, unknown.sticker);
      checkLength(body, "name", 2, 30);
      checkLength(body, "tags", 1, 200);
      for (const key of ["name", "description", "tags"]) if (body[key] !== undefined) sticker[key] = body[key];
      audit(world, params.guild_id!, 91, sticker.id, reason);
      return sticker;
    },
  },
  {
    method: "DELETE",
    path: "/guilds/:guild_id/stickers/:sticker_id",
    handler: ({ world, params, reason }) => {
      const stickers = stickersOf(world, params.guild_id!);
      const sticker = find(stickers, params.sticker_id!, unknown.sticker);
      stickers.splice(stickers.indexOf(sticker), 1);
      audit(world, params.guild_id!, 92, sticker.id, reason);
      return null;
    },
  },
];
