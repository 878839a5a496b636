/**
 * `platform hook pre-tool|post-tool`: Claude Code hooks. Input is the hook's JSON on stdin. pre-tool exits 2
 * with the reason on stderr to block; post-tool prints a JSON decision when the output held vault values.
 */
import { settingHelp, settingOptions, settingsFrom } from "./settings.ts";
import { UsageError, type Verb } from "./verb.ts";

export const hookVerb: Verb = {
  name: "hook",
  summary: "assistant hooks: block calls that expose the environment, redact vault values from tool output",
  args: "<pre-tool|post-tool>",
  options: settingOptions,
  help: settingHelp,
  async run(values, [which, ...extra]) {
    if (which !== "pre-tool" && which !== "post-tool") throw new UsageError("say which hook: pre-tool or post-tool");
    if (extra.length) throw new UsageError(`unexpected argument '${extra[0]}'`);
    let input: { tool_name?: string; tool_input?: Record<string, unknown>; tool_response?: unknown };
    try {
      input = JSON.parse(await Bun.stdin.text());
    } catch {
      process.stderr.write("platform hook: stdin is not the hook's JSON\n");
      return 1;
    }
    const hooks = await import("../vault/hooks.ts");
    if (which === "pre-tool") {
      const reason = hooks.preToolVerdict(input);
      if (!reason) return 0;
      process.stderr.write(`${reason}\n`);
      return 2;
    }
    const { config, log } = settingsFrom(values);
    const { openVault } = await import("../vault/offline.ts");
    const { vault, close } = await openVault(config, log);
    try {
      const answer = hooks.postToolAnswer(input.tool_name ?? "tool", input.tool_response, await vault.sanitizer());
      if (answer) process.stdout.write(`${JSON.stringify(answer)}\n`);
      return 0;
    } catch (error) {
      // Without the vault's values the output cannot be checked: say so rather than pass it silently.
      process.stderr.write(`platform hook post-tool: output not checked: ${(error as Error).message}\n`);
      return 2;
    } finally {
      await close();
    }
  },
};
