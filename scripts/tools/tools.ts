/** Every external tool the tests and benchmarks need, pinned. Adding one is one entry here. */
import { debian, type Recipe } from "./recipe.ts";

export const tools: Recipe[] = [
  debian("chromium", ["chromium"], { chromium: "/usr/bin/chromium" }, "the browser the browser server and the setup-page test drive"),
];
