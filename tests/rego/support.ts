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
