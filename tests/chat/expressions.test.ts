import { afterAll, beforeAll, expect, test } from "bun:test";
import { snowflake } from "../support/discord/world.ts";
import { type ChatHarness, type ChatTools, chatWithTools } from "./harness.ts";

let chat: ChatHarness, tools: ChatTools["tools"], ids: ChatTools["ids"], guildId: string;
beforeAll(async () => void ({ chat, tools, ids, guildId } = await chatWithTools()));
afterAll(() => chat.close());

/** A PNG's signature and header, padded to `bytes`. */
const png = (bytes: number) => Buffer.concat([Buffer.from("89504e470d0a1a0a0000000d49484452", "hex"), Buffer.alloc(Math.max(0, bytes - 16))]).toString("base64");

test("emojis: listed, created from an image of at most 256 KiB, renamed, limited to roles, deleted with confirm", async () => {
  expect((await tools.ok<{ emojis: any[] }>("list_guild_emojis", { guildId })).emojis).toEqual([{ id: ids.emoji, name: "platform", animated: false, available: true, roles: [] }]);
  const { emoji } = await tools.ok<{ emoji: any }>("create_emoji", { guildId, name: "party_parrot", image: png(2048), imageType: "gif", reason: "fun" });
  expect(emoji).toMatchObject({ name: "party_parrot", animated: true });
  expect(tools.lastRequest().body!.image).toStartWith("data:image/gif;base64,iVBORw0KGgo");
  expect(await tools.refused("create_emoji", { guildId, name: "big", image: png(256 * 1024 + 1) })).toContain("Invalid value for image: the image is 262145 bytes; Discord takes at most 262144 (256 KiB)");
  expect(await tools.refused("create_emoji", { guildId, name: "has space", image: png(64) })).toContain("Invalid value for name:");
  expect(await tools.failed("create_emoji", { guildId, name: "platform", image: png(64) })).toContain("Maximum number of emojis reached");

  const renamed = await tools.ok<{ emoji: any }>("modify_emoji", { guildId, emojiId: emoji.id, name: "parrot", roles: [ids.memberRole] });
  expect(renamed.emoji).toMatchObject({ name: "parrot", roles: [ids.memberRole] });
  expect(await tools.refused("modify_emoji", { guildId, emojiId: emoji.id })).toContain("give a name, roles or both");
  expect(await tools.refused("delete_emoji", { guildId, emojiId: emoji.id })).toContain("needs confirm: true");
  expect(await tools.ok("delete_emoji", { guildId, emojiId: emoji.id, confirm: true })).toEqual({ deleted: true, id: emoji.id });
  expect(await tools.failed("delete_emoji", { guildId, emojiId: emoji.id, confirm: true })).toContain("Find the emoji's id with list_guild_emojis");
});

test("stickers: listed, created by multipart upload of at most 512 KiB, changed, deleted with confirm", async () => {
  expect((await tools.ok<{ stickers: any[] }>("list_guild_stickers", { guildId })).stickers).toEqual([{ id: ids.sticker, name: "wave", description: "Hello there", tags: "wave", format: "png", available: true }]);
  const { sticker } = await tools.ok<{ sticker: any }>("create_sticker", { guildId, name: "thumbs", description: "Well done", tags: "👍", file: png(4096) });
  expect(sticker).toMatchObject({ name: "thumbs", description: "Well done", tags: "👍", format: "png" });
  expect(tools.lastRequest().body).toEqual({ name: "thumbs", description: "Well done", tags: "👍" });
  expect(await tools.refused("create_sticker", { guildId, name: "huge", description: "", tags: "x", file: png(512 * 1024 + 1) })).toContain("Discord takes at most 524288 (512 KiB)");
  expect(await tools.refused("create_sticker", { guildId, name: "x", description: "", tags: "x", file: png(64) })).toContain("Invalid value for name:");
  expect(await tools.refused("create_sticker", { guildId, name: "odd", description: "a", tags: "x", file: png(64) })).toContain("must be empty or 2 to 100 characters");

  expect((await tools.ok<{ sticker: any }>("modify_sticker", { guildId, stickerId: sticker.id, tags: "clap" })).sticker.tags).toBe("clap");
  expect(await tools.refused("modify_sticker", { guildId, stickerId: sticker.id })).toContain("give a name, description or tags");
  expect(await tools.ok("delete_sticker", { guildId, stickerId: sticker.id, confirm: true })).toEqual({ deleted: true, id: sticker.id });
  expect(await tools.failed("modify_sticker", { guildId, stickerId: snowflake(), name: "ghost" })).toContain("Find the sticker's id with list_guild_stickers");
});
