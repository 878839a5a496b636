import { expect, test } from "bun:test";
import { chatTools } from "../../src/chat/tools/all.ts";

/** The 71 tool names of the system this server replaces, family by family. */
const names = {
  messaging: ["send_message", "send_rich_message", "send_message_with_file", "read_messages", "edit_message", "delete_message", "bulk_delete_messages", "add_reaction", "pin_message", "unpin_message"],
  channels: ["list_channels", "get_channel_details", "create_text_channel", "create_voice_channel", "create_category", "create_forum_channel", "create_stage_channel", "modify_channel", "delete_channel", "set_channel_permissions"],
  threads: ["find_threads", "create_thread", "archive_thread"],
  server: ["get_server_info", "modify_server", "get_audit_logs", "list_webhooks", "create_webhook", "get_invites", "create_invite"],
  members: ["get_member_info", "list_members", "set_nickname"],
  roles: ["list_roles", "get_role_info", "create_role", "modify_role", "delete_role", "assign_role", "remove_role"],
  moderation: ["kick_member", "ban_member", "unban_member", "timeout_member", "remove_timeout", "get_bans"],
  emojis: ["list_guild_emojis", "create_emoji", "modify_emoji", "delete_emoji"],
  stickers: ["list_guild_stickers", "create_sticker", "modify_sticker", "delete_sticker"],
  events: ["list_scheduled_events", "get_event_details", "create_scheduled_event", "modify_scheduled_event", "delete_scheduled_event", "get_event_users"],
  automod: ["list_automod_rules", "get_automod_rule", "create_automod_rule", "modify_automod_rule", "delete_automod_rule"],
  commands: ["list_application_commands", "get_application_command", "create_application_command", "modify_application_command", "delete_application_command", "bulk_overwrite_commands"],
};
/** What users of the peers asked for, beyond those 71. */
const added = ["search_messages", "remove_reaction", "list_forum_posts", "read_forum_post", "create_forum_post", "send_webhook_message"];

test("all 71 tools are there by their names, with the additions users asked for, and nothing else", () => {
  const expected = Object.values(names).flat();
  expect(expected).toHaveLength(71);
  expect(chatTools.map((t) => t.name).sort()).toEqual([...expected, ...added].sort());
});

test("every tool has an output schema; every destructive one takes confirm, and every delete, kick and ban is destructive", () => {
  for (const tool of chatTools) {
    expect({ tool: tool.name, output: tool.output.type }).toEqual({ tool: tool.name, output: "object" });
    if (tool.kind === "destructive") expect({ tool: tool.name, confirm: "confirm" in tool.input.properties }).toEqual({ tool: tool.name, confirm: true });
    if (/^(delete|bulk_delete|kick|ban)_/.test(tool.name)) expect({ tool: tool.name, kind: tool.kind }).toEqual({ tool: tool.name, kind: "destructive" });
    if (tool.kind === "destructive" && !/_command|_scheduled_event|bulk_overwrite/.test(tool.name))
      expect({ tool: tool.name, reason: "reason" in tool.input.properties }).toEqual({ tool: tool.name, reason: true });
  }
});
