import { version } from "../version.ts";
import type { Verb } from "./verb.ts";

export const versionVerb: Verb = {
  name: "version",
  summary: "print the version",
  options: {},
  help: {},
  async run() {
    console.log(`platform ${version} (bun ${Bun.version})`);
    return 0;
  },
};
