/**
 * The input schemas the chat tools share, with Discord's own limits (Resources > Message, Channel; Reference >
 * Snowflakes): a call outside them is refused before any request leaves the process.
 */
import { type Static, Type } from "@sinclair/typebox";
import { PermissionFlagsBits } from "discord-api-types/payloads/v10";

const snowflakePattern = "^\\d{17,19}$";
export const Snowflake = (description: string) => Type.String({ pattern: snowflakePattern, description });

export const GuildId = Snowflake("Guild (server) id");
export const ChannelId = Snowflake("Channel id (a thread's id works where a channel's does)");
export const MessageId = Snowflake("Message id");
export const UserId = Snowflake("User id");
export const RoleId = Snowflake("Role id");

export const Content = Type.String({ minLength: 1, maxLength: 2000, description: "Message text, at most 2000 characters" });

/** The audit-log reason (X-Audit-Log-Reason); Discord keeps at most 512 characters. */
export const Reason = Type.Optional(Type.String({ minLength: 1, maxLength: 512, description: "Why, for the guild's audit log" }));
export const Confirm = Type.Optional(Type.Boolean({ description: "Set to true, once the user has agreed: this cannot be undone" }));

const Url = (description: string) => Type.String({ pattern: "^https?://\\S+$", maxLength: 2048, description });
export const Colour = Type.Integer({ minimum: 0, maximum: 0xffffff, description: "Colour as an integer, 0 to 16777215 (0xFFFFFF)" });

/** An embed with Discord's limits per part; the 6000-character total across a message's embeds is checked apart. */
export const Embed = Type.Object(
  {
    title: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
    description: Type.Optional(Type.String({ minLength: 1, maxLength: 4096 })),
    url: Type.Optional(Url("Link of the title")),
    color: Type.Optional(Colour),
    timestamp: Type.Optional(Type.String({ pattern: "^\\d{4}-\\d{2}-\\d{2}T", description: "ISO 8601 time shown in the footer" })),
    footer: Type.Optional(Type.Object({ text: Type.String({ minLength: 1, maxLength: 2048 }), iconUrl: Type.Optional(Url("Footer icon")) }, { additionalProperties: false })),
    author: Type.Optional(
      Type.Object({ name: Type.String({ minLength: 1, maxLength: 256 }), url: Type.Optional(Url("Author link")), iconUrl: Type.Optional(Url("Author icon")) }, { additionalProperties: false }),
    ),
    image: Type.Optional(Url("Large image")),
    thumbnail: Type.Optional(Url("Small image at the top right")),
    fields: Type.Optional(
      Type.Array(
        Type.Object(
          { name: Type.String({ minLength: 1, maxLength: 256 }), value: Type.String({ minLength: 1, maxLength: 1024 }), inline: Type.Optional(Type.Boolean()) },
          { additionalProperties: false },
        ),
        { maxItems: 25 },
      ),
    ),
  },
  { additionalProperties: false },
);
export type Embed = Static<typeof Embed>;
export const Embeds = Type.Array(Embed, { minItems: 1, maxItems: 10, description: "At most 10 embeds" });

/** Discord counts these parts of all of a message's embeds together, at most 6000 characters. */
export const embedCharacters = (embed: Embed) =>
  (embed.title?.length ?? 0) +
  (embed.description?.length ?? 0) +
  (embed.footer?.text.length ?? 0) +
  (embed.author?.name.length ?? 0) +
  (embed.fields ?? []).reduce((sum, field) => sum + field.name.length + field.value.length, 0);
export const maxEmbedCharacters = 6000;

/** Permission names as Discord's documentation spells them (ViewChannel, ManageRoles, ...), and their bits. */
const permissionBits: Readonly<Record<string, bigint>> = PermissionFlagsBits;
const PermissionName = Type.Union(
  Object.keys(permissionBits).map((name) => Type.Literal(name)),
  { description: "A permission by its Discord name, e.g. ViewChannel, SendMessages, ManageRoles" },
);
export const Permissions = Type.Array(PermissionName, { uniqueItems: true, maxItems: 64 });

export const bitsOf = (names: readonly string[] = []) => names.reduce((bits, name) => bits | permissionBits[name]!, 0n).toString();

/** One name per bit, the current one where Discord renamed a permission (ManageGuildExpressions). */
const nameOfBit = new Map(Object.entries(permissionBits).map(([name, bit]) => [bit, name]));

/** The names of the bits set in a permission string, lowest bit first. */
export const namesOf = (bits: string | null | undefined) => {
  const value = BigInt(bits ?? "0");
  return [...nameOfBit].filter(([bit]) => (value & bit) === bit).map(([, name]) => name);
};

/** Limits for uploads Discord states: emoji images 256 KiB, stickers 512 KiB, attachments 10 MiB for a bot. */
export const maxBytes = { emoji: 256 * 1024, sticker: 512 * 1024, attachment: 10 * 1024 * 1024 };
/** Base64 text whose decoded size is at most `bytes`. */
export const Base64 = (bytes: number, description: string) =>
  Type.String({ minLength: 4, maxLength: Math.ceil(bytes / 3) * 4, pattern: "^[A-Za-z0-9+/]+={0,2}$", description: `${description} (base64, at most ${bytes / 1024} KiB decoded)` });

/** When the message with this id was sent: a snowflake carries its time (Reference > Snowflakes). */
export const snowflakeTime = (id: string) => Number((BigInt(id) >> 22n) + 1420070400000n);
