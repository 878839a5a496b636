/** The platform's own policies (policies/), built into the executable: what runs when no policy_dir is set. */
import data from "../../policies/data.json" with { type: "json" };
import authz from "../../policies/authz.rego" with { type: "text" };
import type { PolicyModule } from "../rego/engine.ts";

export const builtinPolicies: { modules: PolicyModule[]; data: unknown } = { modules: [{ id: "authz.rego", source: authz }], data };
