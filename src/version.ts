import pkg from "../package.json" with { type: "json" };

/** The platform's version, from package.json (compiled into the executable). */
export const version: string = pkg.version;
