/** A guild's emojis and stickers: list, create from an image, rename or retag, delete. */
import { Type } from "@sinclair/typebox";
import { Routes } from "discord-api-types/rest/v10";
import type { APIEmoji, APISticker } from "discord-api-types/v10";
import { invalidInput } from "../errors.ts";
import { Base64, Confirm, GuildId, maxBytes, Reason, RoleId, Snowflake } from "../model.ts";
import { EmojiView, emojiView, StickerView, stickerView } from "../views.ts";
import { chatTool } from "./tool.ts";

const EmojiName = Type.String({ pattern: "^\\w{2,32}$", description: "2 to 32 letters, digits or underscores" });
const EmojiId = Snowflake("The emoji's id");
const StickerId = Snowflake("The sticker's id");
const StickerName = Type.String({ minLength: 2, maxLength: 30 });
const StickerDescription = Type.String({ maxLength: 100, description: "Empty, or 2 to 100 characters" });
const StickerTags = Type.String({ minLength: 1, maxLength: 200, description: "Autocomplete keywords, e.g. the name of a related emoji" });
const imageTypes = { png: "image/png", jpeg: "image/jpeg", gif: "image/gif", webp: "image/webp" } as const;
const stickerTypes = {
  png: { contentType: "image/png", extension: "png" },
  apng: { contentType: "image/png", extension: "png" },
  gif: { contentType: "image/gif", extension: "gif" },
  lottie: { contentType: "application/json", extension: "json" },
} as const;
const guildScope = ({ guildId }: { guildId: string }) => ({ guildId });
const Deleted = Type.Object({ deleted: Type.Literal(true), id: Type.String() });

/** Checks the decoded size, which the schema's length only bounds. */
function checkSize(field: string, data: string, limit: number): void {
  const bytes = Buffer.byteLength(data, "base64");
  if (bytes > limit) throw invalidInput(field, `the image is ${bytes} bytes; Discord takes at most ${limit} (${limit / 1024} KiB)`);
}

export const emojiTools = [
  chatTool({
    name: "list_guild_emojis",
    title: "List emojis",
    description: "List a guild's custom emojis: id, name, animated, and the roles allowed to use them.",
    kind: "read",
    input: Type.Object({ guildId: GuildId }),
    output: Type.Object({ emojis: Type.Array(EmojiView) }),
    scope: guildScope,
    run: async ({ guildId }, rest) => ({ emojis: ((await rest.get(Routes.guildEmojis(guildId))) as APIEmoji[]).map(emojiView) }),
  }),
  chatTool({
    name: "create_emoji",
    title: "Create an emoji",
    description: "Add a custom emoji from a PNG, JPEG, GIF or WebP image of at most 256 KiB, optionally only for some roles.",
    kind: "write",
    input: Type.Object({
      guildId: GuildId,
      name: EmojiName,
      image: Base64(maxBytes.emoji, "The image"),
      imageType: Type.Union(Object.keys(imageTypes).map((t) => Type.Literal(t)), { default: "png" }),
      roles: Type.Optional(Type.Array(RoleId, { maxItems: 250, uniqueItems: true })),
      reason: Reason,
    }),
    output: Type.Object({ emoji: EmojiView }),
    scope: guildScope,
    check: ({ image }) => checkSize("image", image, maxBytes.emoji),
    async run({ guildId, name, image, imageType, roles, reason }, rest) {
      const body = { name, image: `data:${imageTypes[imageType as keyof typeof imageTypes]};base64,${image}`, roles };
      return { emoji: emojiView((await rest.post(Routes.guildEmojis(guildId), { body, reason })) as APIEmoji) };
    },
  }),
  chatTool({
    name: "modify_emoji",
    title: "Modify an emoji",
    description: "Rename a custom emoji or change which roles may use it (an empty list: everyone).",
    kind: "write",
    input: Type.Object({ guildId: GuildId, emojiId: EmojiId, name: Type.Optional(EmojiName), roles: Type.Optional(Type.Array(RoleId, { maxItems: 250, uniqueItems: true })), reason: Reason }),
    output: Type.Object({ emoji: EmojiView }),
    scope: guildScope,
    check: ({ name, roles }) => {
      if (name === undefined && roles === undefined) throw invalidInput("name", "give a name, roles or both");
    },
    run: async ({ guildId, emojiId, name, roles, reason }, rest) => ({ emoji: emojiView((await rest.patch(Routes.guildEmoji(guildId, emojiId), { body: { name, roles }, reason })) as APIEmoji) }),
  }),
  chatTool({
    name: "delete_emoji",
    title: "Delete an emoji",
    description: "Delete a custom emoji. Needs confirm: true.",
    kind: "destructive",
    input: Type.Object({ guildId: GuildId, emojiId: EmojiId, reason: Reason, confirm: Confirm }),
    output: Deleted,
    scope: guildScope,
    async run({ guildId, emojiId, reason }, rest) {
      await rest.delete(Routes.guildEmoji(guildId, emojiId), { reason });
      return { deleted: true as const, id: emojiId };
    },
  }),
];

export const stickerTools = [
  chatTool({
    name: "list_guild_stickers",
    title: "List stickers",
    description: "List a guild's stickers: id, name, description, tags and format.",
    kind: "read",
    input: Type.Object({ guildId: GuildId }),
    output: Type.Object({ stickers: Type.Array(StickerView) }),
    scope: guildScope,
    run: async ({ guildId }, rest) => ({ stickers: ((await rest.get(Routes.guildStickers(guildId))) as APISticker[]).map(stickerView) }),
  }),
  chatTool({
    name: "create_sticker",
    title: "Create a sticker",
    description: "Add a sticker from a PNG, APNG, GIF or Lottie JSON file of at most 512 KiB (320 by 320 pixels).",
    kind: "write",
    input: Type.Object({
      guildId: GuildId,
      name: StickerName,
      description: StickerDescription,
      tags: StickerTags,
      file: Base64(maxBytes.sticker, "The sticker file"),
      fileType: Type.Union(Object.keys(stickerTypes).map((t) => Type.Literal(t)), { default: "png" }),
      reason: Reason,
    }),
    output: Type.Object({ sticker: StickerView }),
    scope: guildScope,
    check: ({ file, description }) => {
      checkSize("file", file, maxBytes.sticker);
      if (description.length === 1) throw invalidInput("description", "must be empty or 2 to 100 characters");
    },
    async run({ guildId, name, description, tags, file, fileType, reason }, rest) {
      const { contentType, extension } = stickerTypes[fileType as keyof typeof stickerTypes];
      // Stickers are created from a multipart form whose fields sit beside the file (not in payload_json).
      const sticker = (await rest.post(Routes.guildStickers(guildId), {
        appendToFormData: true,
        body: { name, description, tags },
        files: [{ key: "file", name: `sticker.${extension}`, data: Buffer.from(file, "base64"), contentType }],
        reason,
      })) as APISticker;
      return { sticker: stickerView(sticker) };
    },
  }),
  chatTool({
    name: "modify_sticker",
    title: "Modify a sticker",
    description: "Change a sticker's name, description or tags.",
    kind: "write",
    input: Type.Object({ guildId: GuildId, stickerId: StickerId, name: Type.Optional(StickerName), description: Type.Optional(StickerDescription), tags: Type.Optional(StickerTags), reason: Reason }),
    output: Type.Object({ sticker: StickerView }),
    scope: guildScope,
    check: ({ name, description, tags }) => {
      if (name === undefined && description === undefined && tags === undefined) throw invalidInput("name", "give a name, description or tags");
    },
    run: async ({ guildId, stickerId, name, description, tags, reason }, rest) => ({
      sticker: stickerView((await rest.patch(Routes.guildSticker(guildId, stickerId), { body: { name, description, tags }, reason })) as APISticker),
    }),
  }),
  chatTool({
    name: "delete_sticker",
    title: "Delete a sticker",
    description: "Delete a sticker. Needs confirm: true.",
    kind: "destructive",
    input: Type.Object({ guildId: GuildId, stickerId: StickerId, reason: Reason, confirm: Confirm }),
    output: Deleted,
    scope: guildScope,
    async run({ guildId, stickerId, reason }, rest) {
      await rest.delete(Routes.guildSticker(guildId, stickerId), { reason });
      return { deleted: true as const, id: stickerId };
    },
  }),
];
