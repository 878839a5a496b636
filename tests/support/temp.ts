/** Temporary folders for tests; each suite removes its own in afterAll. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export function tempDir(): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), "platform-test-"));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}
