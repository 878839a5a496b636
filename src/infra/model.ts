/** The infra server's shapes, declared once in TypeBox: tool inputs and the results they answer with. */
import { type Static, Type } from "@sinclair/typebox";

export const readOnlyActions = ["init", "validate", "fmt", "plan", "show", "graph", "providers", "version"] as const;
export const applyActions = ["apply", "destroy"] as const;
export type Action = (typeof readOnlyActions)[number] | (typeof applyActions)[number];

export const WorkspacePath = Type.String({
  default: ".",
  maxLength: 4096,
  description: "A folder relative to the workspace root (`.` is the root itself); absolute paths are accepted only inside it.",
});

export const FilePath = Type.String({ minLength: 1, maxLength: 4096, description: "A file relative to the workspace root." });

export const Vars = Type.Record(Type.String({ pattern: "^[A-Za-z_][A-Za-z0-9_-]*$" }), Type.Unknown(), {
  description: "Input variables, passed through a temporary .tfvars.json file, never on the command line.",
});

/** The `infra` tool's input; `apply` and `destroy` are offered only when infra.allow_apply is set. */
export const infraInput = (allowApply: boolean) =>
  Type.Object(
    {
      path: WorkspacePath,
      action: Type.Union((allowApply ? [...readOnlyActions, ...applyActions] : readOnlyActions).map((a) => Type.Literal(a)), {
        description: allowApply
          ? "What to run. apply and destroy take a plan this server saved (plan_id and plan_sha256 from a plan result)."
          : "What to run. Nothing here changes infrastructure: apply and destroy are turned off on this server.",
      }),
      vars: Type.Optional(Vars),
      destroy: Type.Optional(Type.Boolean({ description: "plan: make a destroy plan." })),
      write: Type.Optional(Type.Boolean({ description: "fmt: rewrite the files (default: only list those that differ, with the diff)." })),
      plan_id: Type.Optional(Type.String({ pattern: "^[a-f0-9-]{36}$", description: "show, apply, destroy: a plan saved by this server's plan action." })),
      plan_sha256: Type.Optional(Type.String({ pattern: "^[a-f0-9]{64}$", description: "apply, destroy: the plan's hash, from the plan result." })),
      timeout_seconds: Type.Optional(Type.Integer({ minimum: 1, description: "Stop the run after this long (at most infra.run_timeout_seconds)." })),
    },
    { additionalProperties: false },
  );
export type InfraInput = Static<ReturnType<typeof infraInput>>;

export interface Diagnostic {
  severity: "error" | "warning";
  summary: string;
  detail?: string;
  file?: string;
  line?: number;
  column?: number;
}
