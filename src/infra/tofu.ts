/**
 * The actions of the `infra` tool: for each, the command line (always -input=false and -no-color, -json where the
 * command has it) and how its output becomes a structured result. Never a command that changes infrastructure
 * unless it is `apply` of a plan this server saved.
 */
import type { Action } from "./model.ts";
import type { ActionResult, Diagnostic, FmtResult, GraphResult, InitResult, PlanResult, ProvidersResult, ShowResult, ValidateResult, VersionResult } from "./views.ts";

export interface Invocation {
  args: string[];
  /** Exit codes that are results rather than failures (validate's 1 carries its diagnostics; fmt -check's 3). */
  okExitCodes: number[];
  /** Whether the action reads a variables file. */
  takesVars: boolean;
  parse(stdout: string, exitCode: number): ActionResult;
}

export interface InvocationOptions {
  write?: boolean;
  destroy?: boolean;
  planFile?: string;
  varFile?: string;
}

export function invocation(action: Action, options: InvocationOptions): Invocation {
  const vars = options.varFile ? [`-var-file=${options.varFile}`] : [];
  switch (action) {
    case "init":
      return { args: ["init", "-input=false", "-no-color", "-json"], okExitCodes: [0], takesVars: false, parse: (out) => messagesOf(out) };
    case "validate":
      return {
        args: ["validate", "-no-color", "-json"],
        okExitCodes: [0, 1],
        takesVars: false,
        parse: (out): ValidateResult => {
          const report = jsonDocument(out) as { valid: boolean; error_count: number; warning_count: number; diagnostics: RawDiagnostic[] };
          return { valid: report.valid, error_count: report.error_count, warning_count: report.warning_count, diagnostics: report.diagnostics.map(diagnostic) };
        },
      };
    case "fmt":
      return {
        args: ["fmt", "-no-color", "-recursive", "-list=true", ...(options.write ? [] : ["-check", "-diff", "-write=false"])],
        okExitCodes: [0, 3],
        takesVars: false,
        parse: (out): FmtResult => {
          // Listed file names stand alone on their lines; the diff's own lines start with ---, +++, @@, a sign or a space.
          const files = out.split("\n").filter((line) => /^[^-+@\s].*\.(tf|tfvars|tofu|tftest\.hcl)$/.test(line));
          return { written: options.write === true, files: files.map((f) => f.trim()), formatted: files.length === 0, ...(options.write ? {} : { diff: out }) };
        },
      };
    case "plan":
      return {
        args: ["plan", "-input=false", "-no-color", "-json", `-out=${options.planFile}`, ...(options.destroy ? ["-destroy"] : []), ...vars],
        okExitCodes: [0],
        takesVars: true,
        parse: (out) => planOf(out),
      };
    case "apply":
    case "destroy":
      return { args: ["apply", "-input=false", "-no-color", "-json", options.planFile!], okExitCodes: [0], takesVars: false, parse: (out) => planOf(out) };
    case "show":
      return {
        args: ["show", "-no-color", "-json", ...(options.planFile ? [options.planFile] : [])],
        okExitCodes: [0],
        takesVars: false,
        // tofu's own document, passed on as printed (it always names its format_version).
        parse: (out) => jsonDocument(out) as ShowResult,
      };
    case "graph":
      return { args: ["graph"], okExitCodes: [0], takesVars: false, parse: (out) => graphOf(out) };
    case "providers":
      return { args: ["providers", "-no-color"], okExitCodes: [0], takesVars: false, parse: (out) => providersOf(out) };
    case "version":
      return { args: ["version", "-json"], okExitCodes: [0], takesVars: false, parse: (out) => jsonDocument(out) as VersionResult };
  }
}

interface RawDiagnostic {
  severity: "error" | "warning";
  summary: string;
  detail?: string;
  range?: { filename: string; start: { line: number; column: number } };
}

const diagnostic = (raw: RawDiagnostic): Diagnostic => ({
  severity: raw.severity,
  summary: raw.summary,
  ...(raw.detail ? { detail: raw.detail } : {}),
  ...(raw.range ? { file: raw.range.filename, line: raw.range.start.line, column: raw.range.start.column } : {}),
});

interface JsonLine {
  "@level": string;
  "@message": string;
  type?: string;
  diagnostic?: RawDiagnostic;
  change?: { resource: { addr: string; resource_type: string }; action: string; reason?: string };
  changes?: { add: number; change: number; import: number; remove: number };
  outputs?: Record<string, { sensitive: boolean; action?: string; value?: unknown }>;
  hook?: { resource?: { addr: string }; action: string };
}

/**
 * A command's one JSON document. tofu may print a warning before it (an unreadable CLI configuration file, say),
 * so it is read from the first line that opens an object.
 */
export function jsonDocument(out: string): Record<string, unknown> {
  const start = out.startsWith("{") ? 0 : out.indexOf("\n{") + 1;
  return JSON.parse(out.slice(start)) as Record<string, unknown>;
}

/** The lines of a -json run; a line that is not JSON (a warning printed before the stream starts) is skipped. */
export function jsonLines(out: string): JsonLine[] {
  const lines: JsonLine[] = [];
  for (const line of out.split("\n")) {
    if (!line.startsWith("{")) continue;
    try {
      lines.push(JSON.parse(line) as JsonLine);
    } catch {
      // not one of the stream's lines
    }
  }
  return lines;
}

function messagesOf(out: string): InitResult {
  const lines = jsonLines(out);
  return {
    messages: lines.filter((l) => l.type !== "diagnostic" && l.type !== "version").map((l) => l["@message"]),
    diagnostics: lines.filter((l) => l.diagnostic).map((l) => diagnostic(l.diagnostic!)),
  };
}

function planOf(out: string): PlanResult {
  const lines = jsonLines(out);
  const summary = lines.findLast((l) => l.type === "change_summary")?.changes;
  return {
    summary: summary ? { add: summary.add, change: summary.change, remove: summary.remove, import: summary.import } : null,
    changes: lines
      .filter((l) => (l.type === "planned_change" || l.type === "resource_drift") && l.change)
      .map((l) => ({ address: l.change!.resource.addr, type: l.change!.resource.resource_type, action: l.change!.action, ...(l.type === "resource_drift" ? { drift: true } : {}) })),
    outputs: lines.findLast((l) => l.type === "outputs")?.outputs ?? {},
    diagnostics: lines.filter((l) => l.diagnostic).map((l) => diagnostic(l.diagnostic!)),
    applied: lines.filter((l) => l.type === "apply_complete" && l.hook?.resource).map((l) => ({ address: l.hook!.resource!.addr, action: l.hook!.action })),
  };
}

/** `graph` prints DOT; its nodes and edges, quoted names unquoted. */
function graphOf(out: string): GraphResult {
  const edges = [...out.matchAll(/^\s*"([^"]+)"\s*->\s*"([^"]+)"/gm)].map(([, from, to]) => ({ from: from!, to: to! }));
  const nodes = [...new Set([...out.matchAll(/^\s*"([^"]+)"\s*\[/gm)].map(([, name]) => name!).concat(edges.flatMap((e) => [e.from, e.to])))];
  return { dot: out, nodes, edges };
}

/** `providers` prints a tree of modules and their provider requirements. */
function providersOf(out: string): ProvidersResult {
  const requirements = [...out.matchAll(/provider\[([^\]]+)\]\s*([^\n]*)/g)].map(([, source, constraint]) => ({ source: source!, constraint: constraint!.trim() || null }));
  return { tree: out.trim(), providers: [...new Map(requirements.map((r) => [`${r.source} ${r.constraint}`, r])).values()] };
}
