/**
 * The platform's own MCP server: what an assistant asks of the runtime itself. The health report as a tool (which
 * also logs the subsystems that are not ok, as a warning or an error, to a client listening), as
 * resources (the whole report and one per subsystem, subscribable: a subscriber hears when a status changes), and
 * a prompt that asks for a diagnosis, with the subsystem names completed.
 */
import { Type } from "@sinclair/typebox";
import type { CapabilityFactory } from "../capability.ts";
import type { Health } from "../health.ts";
import { InvalidArguments } from "../mcp/call.ts";
import { definePrompt, defineTool, jsonResult, ResourceNotFound } from "../mcp/define.ts";

const Status = Type.Union([Type.Literal("ok"), Type.Literal("degraded"), Type.Literal("down")]);
/** The combined health document (src/health.ts); each subsystem adds its own fields beside its status. */
const HealthReport = Type.Object({
  status: Status,
  version: Type.String(),
  uptimeSeconds: Type.Integer({ minimum: 0 }),
  subsystems: Type.Record(Type.String(), Type.Object({ status: Status }, { additionalProperties: true })),
});

/** How often a watched status is read again; health is cheap to read and changes rarely. */
const watchIntervalMs = 2000;

export const platformCapability: CapabilityFactory = ({ mcp, health }) => {
  const subsystem = (name: string) => health.report().subsystems[name];
  const names = () => Object.keys(health.report().subsystems);
  const json = (value: unknown) => JSON.stringify(value, null, 2);

  mcp
    .server("platform", { title: "Platform", instructions: "Runtime status of the platform: the health tool, platform://health resources and the diagnose prompt." })
    .tool(
      defineTool({
        name: "health",
        title: "Platform health",
        description: "Report the platform's overall status and the state of each subsystem (database, actors, MCP).",
        input: Type.Object({}),
        output: HealthReport,
        annotations: { readOnlyHint: true },
        handler: async (_args, { log }) => {
          const report = health.report();
          // A client listening to log notifications hears which subsystems are not ok, beside the result.
          const troubled = Object.entries(report.subsystems).filter(([, part]) => part.status !== "ok");
          if (troubled.length) await log?.(report.status === "down" ? "error" : "warning", { status: report.status, subsystems: Object.fromEntries(troubled) });
          return jsonResult(report);
        },
      }),
    )
    .resource({
      uri: "platform://health",
      name: "health",
      title: "Platform health",
      description: "The combined health report; subscribers hear when any subsystem's status changes.",
      mimeType: "application/json",
      read: async () => json(health.report()),
      watch: watching(health, (report) => JSON.stringify(Object.entries(report.subsystems).map(([name, s]) => [name, s.status]))),
    })
    .template({
      uriTemplate: "platform://health/{subsystem}",
      name: "subsystem-health",
      title: "Health of one subsystem",
      description: "One subsystem's part of the health report; subscribers hear when its status changes.",
      mimeType: "application/json",
      list: async () => names().map((name) => ({ uri: `platform://health/${name}`, name: `${name} health` })),
      read: async (uri, { subsystem: name }) => {
        const part = subsystem(name!);
        if (!part) throw new ResourceNotFound(uri);
        return json(part);
      },
      complete: { subsystem: async (typed) => names().filter((name) => name.startsWith(typed)) },
      watch: (_uri, { subsystem: name }, changed) => watching(health, (report) => report.subsystems[name!]?.status ?? "absent")(changed),
    })
    .prompt(
      definePrompt({
        name: "diagnose",
        title: "Diagnose the platform",
        description: "Ask for a diagnosis of the platform's health, or of one subsystem's, from the current report.",
        arguments: Type.Object({ subsystem: Type.Optional(Type.String({ description: "one subsystem to look at (all by default)" })) }),
        complete: { subsystem: async (typed) => names().filter((name) => name.startsWith(typed)) },
        get: async ({ subsystem: name }) => {
          if (name !== undefined && !subsystem(name)) throw new InvalidArguments("prompt diagnose", "subsystem", `no subsystem named ${name}; have: ${names().join(", ")}`);
          const uri = name ? `platform://health/${name}` : "platform://health";
          const report = name ? subsystem(name) : health.report();
          return {
            description: `Diagnose ${name ?? "the platform"}`,
            messages: [
              {
                role: "user",
                content: {
                  type: "text",
                  text:
                    `Here is the current health report of ${name ? `the platform's ${name} subsystem` : "the platform"}. ` +
                    "Say whether it is healthy; for anything not ok, explain what the fields show is wrong and what an operator should check first.",
                },
              },
              { role: "user", content: { type: "resource", resource: { uri, mimeType: "application/json", text: json(report) } } },
            ],
          };
        },
      }),
    );
  return { name: "platform" };
};

/** A Watch that reads the report every few seconds and reports when `key` of it changes. */
function watching(health: Health, key: (report: ReturnType<Health["report"]>) => string) {
  return (changed: () => void) => {
    let last = key(health.report());
    const timer = setInterval(() => {
      const now = key(health.report());
      if (now !== last) (last = now), changed();
    }, watchIntervalMs);
    timer.unref();
    return () => clearInterval(timer);
  };
}
