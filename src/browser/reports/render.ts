/** Renders a stored test result in each report format, with the content type it is served as. */
import type { TestResult } from "../model.ts";
import { html } from "./html.ts";
import { junit } from "./junit.ts";
import { sarif } from "./sarif.ts";

export const reportFormats = ["json", "xml", "sarif", "html"] as const;
export type ReportFormat = (typeof reportFormats)[number];

export async function render(result: TestResult, format: ReportFormat, screenshot: (name: string) => Promise<Uint8Array | undefined>) {
  switch (format) {
    case "json":
      return { body: JSON.stringify(result, null, 2), type: "application/json" };
    case "xml":
      return { body: junit(result), type: "application/xml" };
    case "sarif":
      return { body: JSON.stringify(sarif(result), null, 2), type: "application/sarif+json" };
    case "html": {
      const images = new Map<string, Uint8Array>();
      for (const shot of result.screenshots) {
        const bytes = await screenshot(shot.name);
        if (bytes) images.set(shot.name, bytes);
      }
      return { body: html(result, images), type: "text/html; charset=utf-8" };
    }
  }
}
