/** The platform's own MCP server: what an assistant asks of the runtime itself. */
import { Type } from "@sinclair/typebox";
import type { CapabilityFactory } from "../capability.ts";
import { defineTool, jsonResult } from "../mcp/define.ts";

export const platformCapability: CapabilityFactory = ({ mcp, health }) => {
  mcp.server("platform", { title: "Platform", instructions: "Runtime status of the platform." }).tool(
    defineTool({
      name: "health",
      title: "Platform health",
      description: "Report the platform's overall status and the state of each subsystem (database, actors, MCP).",
      input: Type.Object({}),
      annotations: { readOnlyHint: true },
      handler: async () => jsonResult(health.report()),
    }),
  );
  return { name: "platform" };
};
