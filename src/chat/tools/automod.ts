/** AutoMod rules: list, read, create, change, delete. Triggers, presets and actions go by name. */
import { type Static, Type } from "@sinclair/typebox";
import {
  AutoModerationActionType,
  AutoModerationRuleEventType,
  AutoModerationRuleKeywordPresetType,
  AutoModerationRuleTriggerType,
} from "discord-api-types/payloads/v10";
import { Routes } from "discord-api-types/rest/v10";
import type { APIAutoModerationAction, APIAutoModerationRule } from "discord-api-types/v10";
import { invalidInput } from "../errors.ts";
import { ChannelId, Confirm, GuildId, Reason, RoleId, Snowflake } from "../model.ts";
import { AutomodRuleView, automodRuleView } from "../views.ts";
import { chatTool } from "./tool.ts";

const RuleId = Snowflake("The rule's id");
const triggers = {
  keyword: AutoModerationRuleTriggerType.Keyword,
  spam: AutoModerationRuleTriggerType.Spam,
  keyword_preset: AutoModerationRuleTriggerType.KeywordPreset,
  mention_spam: AutoModerationRuleTriggerType.MentionSpam,
  member_profile: AutoModerationRuleTriggerType.MemberProfile,
};
const presets = { profanity: AutoModerationRuleKeywordPresetType.Profanity, sexual_content: AutoModerationRuleKeywordPresetType.SexualContent, slurs: AutoModerationRuleKeywordPresetType.Slurs };
const actionTypes = { block: AutoModerationActionType.BlockMessage, alert: AutoModerationActionType.SendAlertMessage, timeout: AutoModerationActionType.Timeout };
const literals = (names: string[]) => Type.Union(names.map((name) => Type.Literal(name)));

const Keywords = Type.Array(Type.String({ minLength: 1, maxLength: 60 }), { maxItems: 1000, description: "Words or phrases; * matches around them (*cat*)" });
const Patterns = Type.Array(Type.String({ minLength: 1, maxLength: 260 }), { maxItems: 10, description: "Rust-flavoured regular expressions" });
const AllowList = Type.Array(Type.String({ minLength: 1, maxLength: 60 }), { maxItems: 1000 });
const Action = Type.Object(
  {
    type: literals(Object.keys(actionTypes)),
    channelId: Type.Optional(Snowflake("Where an alert is posted")),
    durationSeconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 2_419_200, description: "A timeout's length, up to 28 days" })),
    customMessage: Type.Optional(Type.String({ maxLength: 150, description: "Shown to the member whose message was blocked" })),
  },
  { additionalProperties: false },
);
const Actions = Type.Array(Action, { minItems: 1, maxItems: 5 });
const Exempt = { exemptRoles: Type.Optional(Type.Array(RoleId, { maxItems: 20, uniqueItems: true })), exemptChannels: Type.Optional(Type.Array(ChannelId, { maxItems: 50, uniqueItems: true })) };

function checkActions(actions: Static<typeof Actions> | undefined, trigger?: string): void {
  actions?.forEach((action, i) => {
    if (action.type === "alert" && !action.channelId) throw invalidInput(`actions.${i}.channelId`, "an alert action needs the channel to post in");
    if (action.type === "timeout" && !action.durationSeconds) throw invalidInput(`actions.${i}.durationSeconds`, "a timeout action needs its length");
    if (action.type === "timeout" && trigger && trigger !== "keyword" && trigger !== "mention_spam") throw invalidInput(`actions.${i}.type`, "a timeout action goes only with keyword and mention_spam rules");
    if (action.type !== "block" && action.customMessage) throw invalidInput(`actions.${i}.customMessage`, "only a block action shows a message");
  });
}

const apiAction = (action: Static<typeof Action>): APIAutoModerationAction => ({
  type: actionTypes[action.type as keyof typeof actionTypes],
  metadata: { channel_id: action.channelId, duration_seconds: action.durationSeconds, custom_message: action.customMessage },
});

const guildScope = ({ guildId }: { guildId: string }) => ({ guildId });

export const automodTools = [
  chatTool({
    name: "list_automod_rules",
    title: "List AutoMod rules",
    description: "List a guild's AutoMod rules: trigger, keywords, patterns, presets, actions and exemptions.",
    kind: "read",
    input: Type.Object({ guildId: GuildId }),
    output: Type.Object({ rules: Type.Array(AutomodRuleView) }),
    scope: guildScope,
    run: async ({ guildId }, rest) => ({ rules: ((await rest.get(Routes.guildAutoModerationRules(guildId))) as APIAutoModerationRule[]).map(automodRuleView) }),
  }),
  chatTool({
    name: "get_automod_rule",
    title: "AutoMod rule",
    description: "Read one AutoMod rule.",
    kind: "read",
    input: Type.Object({ guildId: GuildId, ruleId: RuleId }),
    output: Type.Object({ rule: AutomodRuleView }),
    scope: guildScope,
    run: async ({ guildId, ruleId }, rest) => ({ rule: automodRuleView((await rest.get(Routes.guildAutoModerationRule(guildId, ruleId))) as APIAutoModerationRule) }),
  }),
  chatTool({
    name: "create_automod_rule",
    title: "Create an AutoMod rule",
    description:
      "Create an AutoMod rule. Triggers: keyword (keywords and/or regexPatterns), spam, keyword_preset (presets: profanity, sexual_content, slurs), " +
      "mention_spam (mentionLimit), member_profile. Actions: block (optional customMessage), alert (channelId), timeout (durationSeconds).",
    kind: "write",
    input: Type.Object({
      guildId: GuildId,
      name: Type.String({ minLength: 1, maxLength: 100 }),
      trigger: literals(Object.keys(triggers)),
      keywords: Type.Optional(Keywords),
      regexPatterns: Type.Optional(Patterns),
      presets: Type.Optional(Type.Array(literals(Object.keys(presets)), { minItems: 1, uniqueItems: true })),
      allowList: Type.Optional(AllowList),
      mentionLimit: Type.Optional(Type.Integer({ minimum: 1, maximum: 50 })),
      actions: Actions,
      enabled: Type.Boolean({ default: true }),
      ...Exempt,
      reason: Reason,
    }),
    output: Type.Object({ rule: AutomodRuleView }),
    scope: guildScope,
    check: (args) => {
      if ((args.trigger === "keyword" || args.trigger === "member_profile") && !args.keywords?.length && !args.regexPatterns?.length)
        throw invalidInput("keywords", `a ${args.trigger} rule needs keywords or regexPatterns`);
      if (args.trigger === "keyword_preset" && !args.presets?.length) throw invalidInput("presets", "a keyword_preset rule needs presets");
      if (args.trigger === "mention_spam" && !args.mentionLimit) throw invalidInput("mentionLimit", "a mention_spam rule needs mentionLimit");
      checkActions(args.actions, args.trigger);
    },
    async run(args, rest) {
      const body = {
        name: args.name,
        event_type: args.trigger === "member_profile" ? AutoModerationRuleEventType.MemberUpdate : AutoModerationRuleEventType.MessageSend,
        trigger_type: triggers[args.trigger as keyof typeof triggers],
        trigger_metadata: {
          keyword_filter: args.keywords,
          regex_patterns: args.regexPatterns,
          presets: args.presets?.map((name) => presets[name as keyof typeof presets]),
          allow_list: args.allowList,
          mention_total_limit: args.mentionLimit,
        },
        actions: args.actions.map(apiAction),
        enabled: args.enabled,
        exempt_roles: args.exemptRoles,
        exempt_channels: args.exemptChannels,
      };
      return { rule: automodRuleView((await rest.post(Routes.guildAutoModerationRules(args.guildId), { body, reason: args.reason })) as APIAutoModerationRule) };
    },
  }),
  chatTool({
    name: "modify_automod_rule",
    title: "Change an AutoMod rule",
    description: "Change an AutoMod rule's name, whether it is on, its keywords, patterns, allow list, actions or exemptions (each list given replaces the old one).",
    kind: "write",
    input: Type.Object({
      guildId: GuildId,
      ruleId: RuleId,
      name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
      enabled: Type.Optional(Type.Boolean()),
      keywords: Type.Optional(Keywords),
      regexPatterns: Type.Optional(Patterns),
      allowList: Type.Optional(AllowList),
      actions: Type.Optional(Actions),
      ...Exempt,
      reason: Reason,
    }),
    output: Type.Object({ rule: AutomodRuleView }),
    scope: guildScope,
    check: ({ guildId: _g, ruleId: _r, reason: _why, ...changes }) => {
      if (Object.values(changes).every((value) => value === undefined)) throw invalidInput("name", "give at least one change");
      checkActions(changes.actions);
    },
    async run(args, rest) {
      const lists = args.keywords || args.regexPatterns || args.allowList;
      const body = {
        name: args.name,
        enabled: args.enabled,
        trigger_metadata: lists ? { keyword_filter: args.keywords, regex_patterns: args.regexPatterns, allow_list: args.allowList } : undefined,
        actions: args.actions?.map(apiAction),
        exempt_roles: args.exemptRoles,
        exempt_channels: args.exemptChannels,
      };
      return { rule: automodRuleView((await rest.patch(Routes.guildAutoModerationRule(args.guildId, args.ruleId), { body, reason: args.reason })) as APIAutoModerationRule) };
    },
  }),
  chatTool({
    name: "delete_automod_rule",
    title: "Delete an AutoMod rule",
    description: "Delete an AutoMod rule. Needs confirm: true.",
    kind: "destructive",
    input: Type.Object({ guildId: GuildId, ruleId: RuleId, reason: Reason, confirm: Confirm }),
    output: Type.Object({ deleted: Type.Literal(true), id: Type.String() }),
    scope: guildScope,
    async run({ guildId, ruleId, reason }, rest) {
      await rest.delete(Routes.guildAutoModerationRule(guildId, ruleId), { reason });
      return { deleted: true as const, id: ruleId };
    },
  }),
];
