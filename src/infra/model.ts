/**
 * The infra server's vocabulary, declared once in TypeBox: the tools' inputs, the names they share (actions,
 * severities, states) and the helpers the result shapes in views.ts are written with.
 */
import { type ObjectOptions, type Static, type TProperties, type TSchema, Type } from "@sinclair/typebox";

// --- helpers for the result shapes ---

/** A shape this server builds: these properties and no other. What comes from elsewhere as it was sent stays open. */
export const Closed = <P extends TProperties>(properties: P, options: ObjectOptions = {}) => Type.Object(properties, { ...options, additionalProperties: false });
export const Nullable = <T extends TSchema>(schema: T, description?: string) => Type.Union([schema, Type.Null()], description ? { description } : {});
export const Literals = <const T extends string>(values: readonly T[], description?: string) =>
  Type.Union(values.map((value) => Type.Literal(value)), description ? { description } : {});
export const Count = (description?: string) => Type.Integer({ minimum: 0, ...(description ? { description } : {}) });
export const Line = Type.Integer({ minimum: 1, description: "1-based line" });
export const Column = Type.Integer({ minimum: 1, description: "1-based column" });
export const FileName = Type.String({ description: "A file, relative to the workspace folder (to the workspace root in a result about one file)." });
export const RootFile = Type.String({ description: "A file, relative to the workspace root." });
export const Folder = Type.String({ description: "The workspace folder, relative to the workspace root (`.` is the root)." });

// --- names ---

export const readOnlyActions = ["init", "validate", "fmt", "plan", "show", "graph", "providers", "version"] as const;
export const applyActions = ["apply", "destroy"] as const;
export type Action = (typeof readOnlyActions)[number] | (typeof applyActions)[number];
/** The actions the `infra` tool offers: `apply` and `destroy` only when infra.allow_apply is set. */
export const actionsOn = (allowApply: boolean): readonly Action[] => (allowApply ? [...readOnlyActions, ...applyActions] : readOnlyActions);

/** Least to most severe. */
export const severities = ["low", "medium", "high", "critical"] as const;
export const Severity = Literals(severities);
export type Severity = Static<typeof Severity>;

export const focuses = ["security", "cost", "reliability", "performance", "maintainability"] as const;
export type Focus = (typeof focuses)[number];

export const StarterProvider = Literals(["aws", "azurerm", "google", "none"]);
export type StarterProvider = Static<typeof StarterProvider>;

export const RuleProvider = Literals(["aws", "azure", "google"]);
export type RuleProvider = Static<typeof RuleProvider>;
export const RuleCategory = Literals(["encryption", "network", "identity", "logging", "resilience", "general"]);
export type RuleCategory = Static<typeof RuleCategory>;

export const WorkspaceState = Literals(["idle", "running", "failed"], "failed: the last run failed or timed out.");
export type WorkspaceState = Static<typeof WorkspaceState>;

export const LanguageServerState = Literals(["absent", "starting", "ready", "crashed"], "absent: not started; crashed: started again by the next call that needs it.");
export type LanguageServerState = Static<typeof LanguageServerState>;

export const TokenSource = Literals(["vault", "VCS_TOKEN", "none"], "Where the repository host token comes from (never the token).");
export type TokenSource = Static<typeof TokenSource>;

// --- inputs ---

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
      action: Type.Union(actionsOn(allowApply).map((a) => Type.Literal(a)), {
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
