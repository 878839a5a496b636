#!/usr/bin/env bun
/** The `platform` command: `serve` (default), `mcp <server>`, `version` and the admin verbs. */
import { runCli } from "./cli/run.ts";
import { verbs } from "./cli/verbs.ts";

process.exitCode = await runCli(verbs, process.argv.slice(2));
