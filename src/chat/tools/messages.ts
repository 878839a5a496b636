/** Messaging: send (plain, rich, with files), read with cursor paging, search, edit, delete, bulk delete, react, pin. */
import { Type } from "@sinclair/typebox";
import { MessageFlags } from "discord-api-types/payloads/v10";
import { Routes } from "discord-api-types/rest/v10";
import type { APIEmbed, APIMessage, RESTPostAPIChannelMessageJSONBody } from "discord-api-types/v10";
import { invalidInput } from "../errors.ts";
import { ChannelId, Confirm, Content, Embed, Embeds, embedCharacters, maxBytes, maxEmbedCharacters, MessageId, Reason, snowflakeTime, UserId, Base64 } from "../model.ts";
import { MessageView, SentMessage, sentMessage, AttachmentView, messageView } from "../views.ts";
import { chatTool } from "./tool.ts";

const ReplyTo = Type.Optional(MessageId);
const MentionEveryone = Type.Optional(Type.Boolean({ description: "Let @everyone and @here in the text notify; off by default, so text never pings a whole guild by accident" }));
const Silent = Type.Optional(Type.Boolean({ description: "Send without push notifications" }));
const Emoji = Type.String({ minLength: 1, maxLength: 100, description: "A Unicode emoji (👍) or a custom one as name:id" });

/** Checks what the schema cannot: the 6000-character total, and that no embed is empty. `field` names one embed or a list. */
export function checkEmbeds(embeds: Embed[] | undefined, field = "embeds", single = false): void {
  const total = (embeds ?? []).reduce((sum, embed) => sum + embedCharacters(embed), 0);
  if (total > maxEmbedCharacters) throw invalidInput(field, `the embeds hold ${total} characters of text together; Discord allows at most ${maxEmbedCharacters}`);
  embeds?.forEach((embed, i) => {
    if (!embed.title && !embed.description && !embed.fields?.length && !embed.image && !embed.author)
      throw invalidInput(single ? field : `${field}.${i}`, "an embed needs a title, description, fields, an author or an image");
  });
}

export const apiEmbed = (embed: Embed): APIEmbed => ({
  title: embed.title,
  description: embed.description,
  url: embed.url,
  color: embed.color,
  timestamp: embed.timestamp,
  footer: embed.footer && { text: embed.footer.text, icon_url: embed.footer.iconUrl },
  author: embed.author && { name: embed.author.name, url: embed.author.url, icon_url: embed.author.iconUrl },
  image: embed.image ? { url: embed.image } : undefined,
  thumbnail: embed.thumbnail ? { url: embed.thumbnail } : undefined,
  fields: embed.fields,
});

/** What a sent message may notify: users always, roles too, @everyone only when asked. */
const allowedMentions = (everyone?: boolean) => ({ parse: everyone ? (["users", "roles", "everyone"] as const) : (["users", "roles"] as const) }) as RESTPostAPIChannelMessageJSONBody["allowed_mentions"];

const messageBody = (args: { content?: string; embeds?: Embed[]; replyTo?: string; mentionEveryone?: boolean; silent?: boolean }): RESTPostAPIChannelMessageJSONBody => ({
  content: args.content,
  embeds: args.embeds?.map(apiEmbed),
  message_reference: args.replyTo ? { message_id: args.replyTo, fail_if_not_exists: true } : undefined,
  allowed_mentions: allowedMentions(args.mentionEveryone),
  flags: args.silent ? MessageFlags.SuppressNotifications : undefined,
});

const channelScope = ({ channelId }: { channelId: string }) => ({ channelId });
const messageScope = ({ channelId, messageId }: { channelId: string; messageId: string }) => ({ channelId, messageId });
/** Discord deletes in bulk only messages younger than two weeks; a minute's margin for clocks. */
const bulkDeleteAgeMs = 14 * 86_400_000 - 60_000;
const searchableText = (message: MessageView) =>
  [message.content, ...message.embeds.flatMap((e) => [e.title, e.description, ...(e.fields ?? []).map((f) => `${f.name} ${f.value}`)])].join("\n").toLowerCase();
const encodeEmoji = (emoji: string) => encodeURIComponent(emoji.replace(/^<a?:/, "").replace(/>$/, ""));

export const messageTools = [
  chatTool({
    name: "send_message",
    title: "Send a message",
    description: "Send a text message to a channel or thread, optionally as a reply and with embeds. Returns the new message's id and time.",
    kind: "write",
    input: Type.Object({ channelId: ChannelId, content: Content, embeds: Type.Optional(Embeds), replyTo: ReplyTo, mentionEveryone: MentionEveryone, silent: Silent }),
    output: SentMessage,
    scope: channelScope,
    check: ({ embeds }) => checkEmbeds(embeds),
    run: async (args, rest) => sentMessage((await rest.post(Routes.channelMessages(args.channelId), { body: messageBody(args) })) as APIMessage),
  }),
  chatTool({
    name: "send_rich_message",
    title: "Send an embed",
    description:
      "Send one rich embed (title, description, colour, fields, footer, author, image, thumbnail, link, timestamp) with optional text above it. " +
      "Limits: title 256, description 4096, up to 25 fields (name 256, value 1024), footer 2048, author 256, 6000 characters in all.",
    kind: "write",
    input: Type.Object({ channelId: ChannelId, embed: Embed, content: Type.Optional(Content), replyTo: ReplyTo, mentionEveryone: MentionEveryone, silent: Silent }),
    output: SentMessage,
    scope: channelScope,
    check: ({ embed }) => checkEmbeds([embed], "embed", true),
    run: async (args, rest) => sentMessage((await rest.post(Routes.channelMessages(args.channelId), { body: messageBody({ ...args, embeds: [args.embed] }) })) as APIMessage),
  }),
  chatTool({
    name: "send_message_with_file",
    title: "Send files",
    description: "Send up to 10 files (base64, 10 MiB in all) to a channel, with optional text. Returns the message and its attachments' URLs.",
    kind: "write",
    input: Type.Object({
      channelId: ChannelId,
      content: Type.Optional(Content),
      files: Type.Array(
        Type.Object(
          {
            name: Type.String({ minLength: 1, maxLength: 255, pattern: "^[^/\\\\]+$", description: "File name with its extension, e.g. report.pdf" }),
            data: Base64(maxBytes.attachment, "The file's bytes"),
            description: Type.Optional(Type.String({ maxLength: 1024, description: "Alt text" })),
            contentType: Type.Optional(Type.String({ pattern: "^[\\w.+-]+/[\\w.+-]+$", maxLength: 128 })),
          },
          { additionalProperties: false },
        ),
        { minItems: 1, maxItems: 10 },
      ),
      replyTo: ReplyTo,
    }),
    output: Type.Object({ ...SentMessage.properties, attachments: Type.Array(AttachmentView) }),
    scope: channelScope,
    check: ({ files }) => {
      const total = files.reduce((sum, file) => sum + Buffer.byteLength(file.data, "base64"), 0);
      if (total > maxBytes.attachment) throw invalidInput("files", `the files hold ${total} bytes; a bot may send at most ${maxBytes.attachment}`);
    },
    run: async (args, rest) => {
      const message = (await rest.post(Routes.channelMessages(args.channelId), {
        body: { ...messageBody(args), attachments: args.files.map((file, id) => ({ id, filename: file.name, description: file.description })) },
        files: args.files.map((file) => ({ name: file.name, data: Buffer.from(file.data, "base64"), contentType: file.contentType })),
      })) as APIMessage;
      return { ...sentMessage(message), attachments: messageView(message).attachments };
    },
  }),
  chatTool({
    name: "read_messages",
    title: "Read messages",
    description:
      "Read a channel's or thread's messages, newest first: text, author, attachments (url, filename, content type, size), embeds, reactions, " +
      "the message replied to and any thread started from it. Page with one of before, after or around (a message id); the answer gives the " +
      "`before` and `after` cursors for the next page.",
    kind: "read",
    input: Type.Object({
      channelId: ChannelId,
      limit: Type.Integer({ minimum: 1, maximum: 100, default: 50 }),
      before: Type.Optional(MessageId),
      after: Type.Optional(MessageId),
      around: Type.Optional(MessageId),
    }),
    output: Type.Object({ channelId: Type.String(), messages: Type.Array(MessageView), before: Type.Optional(Type.String()), after: Type.Optional(Type.String()) }),
    scope: channelScope,
    check: (args) => {
      const cursors = (["before", "after", "around"] as const).filter((key) => args[key] !== undefined);
      if (cursors.length > 1) throw invalidInput(cursors[1]!, `give only one of before, after and around (got ${cursors.join(" and ")})`);
    },
    run: async ({ channelId, limit, before, after, around }, rest, chat) => ({ channelId, ...(await chat.messages(rest, channelId, { limit, before, after, around })) }),
  }),
  chatTool({
    name: "search_messages",
    title: "Search messages",
    description:
      "Find messages in a channel or thread by text (case-insensitive), author, attachments or time. Discord offers bots no search, so this " +
      "reads the channel's history newest first, up to scanLimit messages, and says how far it got; continue from `before` for older ones.",
    kind: "read",
    input: Type.Object({
      channelId: ChannelId,
      query: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
      authorId: Type.Optional(UserId),
      hasAttachment: Type.Optional(Type.Boolean()),
      since: Type.Optional(Type.String({ pattern: "^\\d{4}-\\d{2}-\\d{2}", description: "ISO 8601 date or time; older messages are not read" })),
      before: Type.Optional(MessageId),
      limit: Type.Integer({ minimum: 1, maximum: 100, default: 25, description: "Most matches to return" }),
      scanLimit: Type.Integer({ minimum: 1, maximum: 2000, default: 500, description: "Most messages to read" }),
    }),
    output: Type.Object({
      matches: Type.Array(MessageView),
      scanned: Type.Integer(),
      /** Where to continue for older messages; absent once the history (or `since`) is reached. */
      before: Type.Optional(Type.String()),
      exhausted: Type.Boolean(),
    }),
    scope: channelScope,
    check: (args) => {
      if (args.query === undefined && args.authorId === undefined && args.hasAttachment === undefined && args.since === undefined)
        throw invalidInput("query", "give at least one of query, authorId, hasAttachment and since");
      if (args.since !== undefined && Number.isNaN(Date.parse(args.since))) throw invalidInput("since", "is not a date");
    },
    async run(args, rest, chat) {
      const since = args.since === undefined ? 0 : Date.parse(args.since);
      const needle = args.query?.toLowerCase();
      const wanted = (message: MessageView) =>
        (!needle || searchableText(message).includes(needle)) &&
        (!args.authorId || message.author.id === args.authorId) &&
        (args.hasAttachment === undefined || message.attachments.length > 0 === args.hasAttachment);
      const matches: MessageView[] = [];
      let scanned = 0;
      let before = args.before;
      let exhausted = false;
      while (!exhausted && scanned < args.scanLimit && matches.length < args.limit) {
        const want = Math.min(100, args.scanLimit - scanned);
        const page = await chat.messages(rest, args.channelId, { limit: want, before });
        exhausted = page.messages.length < want;
        for (const message of page.messages) {
          if (Date.parse(message.timestamp) < since) {
            exhausted = true;
            break;
          }
          scanned++;
          before = message.id;
          if (wanted(message) && matches.push(message) === args.limit) break;
        }
      }
      return { matches, scanned, before: exhausted ? undefined : before, exhausted };
    },
  }),
  chatTool({
    name: "edit_message",
    title: "Edit a message",
    description: "Replace the text and/or embeds of a message the bot sent.",
    kind: "write",
    input: Type.Object({ channelId: ChannelId, messageId: MessageId, content: Type.Optional(Content), embeds: Type.Optional(Embeds) }),
    output: Type.Object({ messageId: Type.String(), channelId: Type.String(), editedTimestamp: Type.Union([Type.String(), Type.Null()]) }),
    scope: messageScope,
    check: ({ content, embeds }) => {
      if (content === undefined && embeds === undefined) throw invalidInput("content", "give content, embeds or both");
      checkEmbeds(embeds);
    },
    async run({ channelId, messageId, content, embeds }, rest) {
      const message = (await rest.patch(Routes.channelMessage(channelId, messageId), { body: { content, embeds: embeds?.map(apiEmbed) } })) as APIMessage;
      return { messageId: message.id, channelId: message.channel_id, editedTimestamp: message.edited_timestamp };
    },
  }),
  chatTool({
    name: "delete_message",
    title: "Delete a message",
    description: "Delete one message. Needs confirm: true.",
    kind: "destructive",
    input: Type.Object({ channelId: ChannelId, messageId: MessageId, reason: Reason, confirm: Confirm }),
    output: Type.Object({ deleted: Type.Literal(true), messageId: Type.String() }),
    scope: messageScope,
    async run({ channelId, messageId, reason }, rest) {
      await rest.delete(Routes.channelMessage(channelId, messageId), { reason });
      return { deleted: true as const, messageId };
    },
  }),
  chatTool({
    name: "bulk_delete_messages",
    title: "Delete messages in bulk",
    description: "Delete 2 to 100 messages of one channel at once; each must be younger than 14 days. Needs confirm: true.",
    kind: "destructive",
    input: Type.Object({ channelId: ChannelId, messageIds: Type.Array(MessageId, { minItems: 2, maxItems: 100, uniqueItems: true }), reason: Reason, confirm: Confirm }),
    output: Type.Object({ deleted: Type.Integer(), channelId: Type.String() }),
    scope: channelScope,
    check: ({ messageIds }) => {
      const oldest = Date.now() - bulkDeleteAgeMs;
      const old = messageIds.findIndex((id) => snowflakeTime(id) < oldest);
      if (old >= 0) throw invalidInput(`messageIds.${old}`, "is older than 14 days; Discord deletes only younger messages in bulk (delete_message deletes it alone)");
    },
    async run({ channelId, messageIds, reason }, rest) {
      await rest.post(Routes.channelBulkDelete(channelId), { body: { messages: messageIds }, reason });
      return { deleted: messageIds.length, channelId };
    },
  }),
  chatTool({
    name: "add_reaction",
    title: "React to a message",
    description: "Add the bot's reaction to a message: a Unicode emoji, or a custom one as name:id.",
    kind: "write",
    input: Type.Object({ channelId: ChannelId, messageId: MessageId, emoji: Emoji }),
    output: Type.Object({ added: Type.Literal(true), emoji: Type.String() }),
    scope: messageScope,
    async run({ channelId, messageId, emoji }, rest) {
      await rest.put(Routes.channelMessageOwnReaction(channelId, messageId, encodeEmoji(emoji)));
      return { added: true as const, emoji };
    },
  }),
  chatTool({
    name: "remove_reaction",
    title: "Remove a reaction",
    description: "Remove a reaction from a message: the bot's own, or a user's (needs Manage Messages).",
    kind: "write",
    input: Type.Object({ channelId: ChannelId, messageId: MessageId, emoji: Emoji, userId: Type.Optional(UserId) }),
    output: Type.Object({ removed: Type.Literal(true), emoji: Type.String() }),
    scope: messageScope,
    async run({ channelId, messageId, emoji, userId }, rest) {
      const encoded = encodeEmoji(emoji);
      await rest.delete(userId ? Routes.channelMessageUserReaction(channelId, messageId, encoded, userId) : Routes.channelMessageOwnReaction(channelId, messageId, encoded));
      return { removed: true as const, emoji };
    },
  }),
  chatTool({
    name: "pin_message",
    title: "Pin a message",
    description: "Pin a message in its channel.",
    kind: "write",
    input: Type.Object({ channelId: ChannelId, messageId: MessageId, reason: Reason }),
    output: Type.Object({ pinned: Type.Boolean(), messageId: Type.String() }),
    scope: messageScope,
    async run({ channelId, messageId, reason }, rest) {
      await rest.put(Routes.channelMessagesPin(channelId, messageId), { reason });
      return { pinned: true, messageId };
    },
  }),
  chatTool({
    name: "unpin_message",
    title: "Unpin a message",
    description: "Unpin a pinned message.",
    kind: "write",
    input: Type.Object({ channelId: ChannelId, messageId: MessageId, reason: Reason }),
    output: Type.Object({ pinned: Type.Boolean(), messageId: Type.String() }),
    scope: messageScope,
    async run({ channelId, messageId, reason }, rest) {
      await rest.delete(Routes.channelMessagesPin(channelId, messageId), { reason });
      return { pinned: false, messageId };
    },
  }),
];
