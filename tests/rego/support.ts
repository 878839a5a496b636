import { RegoError } from "../../src/rego/engine.ts";

/** The RegoError that `run` throws; fails the test if it throws anything else or nothing. */
export function errorOf(run: () => unknown): RegoError {
  try {
    run();
  } catch (e) {
    if (e instanceof RegoError) return e;
    throw e;
  }
  throw new Error("expected a RegoError");
}

/** `file:row:col: detail`: where an error points and what it says, to the column (OPA's text stops at the row). */
export const where = (e: RegoError) => (e.location ? `${e.location.file}:${e.location.row}:${e.location.col}: ${e.detail}` : e.detail);
