/**
 * A test result as one self-contained HTML page (styles inline, screenshots as data URLs): the verdict and
 * counts first, then each finding with where it is and how to fix it, the steps of a playbook, and the
 * screenshots. It loads nothing from anywhere, so it can be mailed or attached to a ticket.
 */
import type { Finding, TestResult } from "../model.ts";
import { severities } from "../model.ts";

const escape = (text: string) => text.replace(/[<>&"']/g, (c) => ({ "<": "&lt;", ">": "&gt;", "&": "&amp;", '"': "&quot;", "'": "&#39;" })[c]!);

const titles: Record<TestResult["test"], string> = {
  exploratory: "Exploratory test",
  accessibility: "Accessibility test",
  responsive: "Responsive test",
  security: "Security test",
  playbook: "Playbook",
};
const verdicts: Record<TestResult["status"], string> = { success: "Passed", warning: "Passed with warnings", error: "Failed" };

const style = `
*{box-sizing:border-box}body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1d2330;background:#f4f6f9}
main{max-width:1080px;margin:0 auto;padding:32px 24px 64px}header{display:flex;gap:24px;align-items:flex-start;justify-content:space-between;flex-wrap:wrap}
h1{margin:0 0 4px;font-size:26px}h2{margin:40px 0 12px;font-size:19px}.url{color:#46506a;word-break:break-all}.meta{color:#5d6780;font-size:13px}
.verdict{padding:10px 18px;border-radius:999px;font-weight:650;font-size:15px;white-space:nowrap}
.verdict.success{background:#dcf5e4;color:#11612f}.verdict.warning{background:#fff1cc;color:#7a5300}.verdict.error{background:#fde0e0;color:#9b1c1c}
.counts{display:grid;grid-template-columns:repeat(5,1fr);gap:12px;margin-top:24px}.count{background:#fff;border-radius:10px;padding:14px 16px;border-top:4px solid}
.count b{display:block;font-size:26px;line-height:1.2}.count span{color:#5d6780;font-size:13px;text-transform:capitalize}
.critical{border-color:#7f1d1d}.high{border-color:#dc2626}.medium{border-color:#f59e0b}.low{border-color:#3b82f6}.info{border-color:#94a3b8}
.finding{background:#fff;border-radius:10px;margin:12px 0;padding:16px 18px;border-left:5px solid #94a3b8}
.finding.critical{border-left-color:#7f1d1d}.finding.high{border-left-color:#dc2626}.finding.medium{border-left-color:#f59e0b}.finding.low{border-left-color:#3b82f6}.finding h3{margin:0 0 6px;font-size:16px}
.tag{display:inline-block;font-size:12px;padding:1px 8px;border-radius:999px;background:#eef1f6;color:#39425a;margin-right:6px}
.sev{color:#fff;font-weight:600}.sev.critical{background:#7f1d1d}.sev.high{background:#dc2626}.sev.medium{background:#b45309}.sev.low{background:#2563eb}.sev.info{background:#64748b}
.fix{margin:8px 0 0;padding:8px 12px;background:#f0f7ff;border-radius:6px}code,pre{font:13px/1.45 ui-monospace,"SF Mono",Menlo,monospace}
pre{background:#1e2433;color:#e6e9f0;padding:10px 12px;border-radius:6px;overflow:auto;white-space:pre-wrap;word-break:break-all;margin:8px 0 0}
dl{display:grid;grid-template-columns:110px 1fr;gap:2px 12px;margin:8px 0 0;font-size:14px}dt{color:#5d6780}dd{margin:0;word-break:break-all}
table{width:100%;border-collapse:collapse;background:#fff;border-radius:10px;overflow:hidden}th,td{text-align:left;padding:9px 12px;border-bottom:1px solid #eceff4;font-size:14px;vertical-align:top}
th{background:#eef1f6;font-weight:600}.passed{color:#11612f}.failed{color:#9b1c1c;font-weight:600}.skipped{color:#64748b}
.shots{display:grid;grid-template-columns:repeat(auto-fill,minmax(300px,1fr));gap:16px}figure{margin:0;background:#fff;border-radius:10px;padding:10px}
figure img{width:100%;border:1px solid #e2e6ee;border-radius:6px}figcaption{font-size:13px;color:#5d6780;margin-top:6px}
.empty{background:#fff;border-radius:10px;padding:18px;color:#11612f}a{color:#1d4ed8}
`;

function findingCard(finding: Finding): string {
  const rows: [string, string][] = [
    ["Page", `<a href="${escape(finding.url)}">${escape(finding.url)}</a>`],
    ...(finding.viewport ? [["Viewport", escape(finding.viewport)] as [string, string]] : []),
    ...(finding.selectors?.length ? [["Elements", finding.selectors.slice(0, 10).map((s) => `<code>${escape(s)}</code>`).join("<br>") + (finding.selectors.length > 10 ? `<br>and ${finding.selectors.length - 10} more` : "")] as [string, string]] : []),
    ...(finding.wcag?.length ? [["WCAG", finding.wcag.map((c) => `<span class="tag">${escape(c)}</span>`).join("")] as [string, string]] : []),
  ];
  return `<article class="finding ${finding.severity}">
  <h3>${escape(finding.title)}</h3>
  <span class="tag sev ${finding.severity}">${finding.severity}</span><span class="tag">${escape(finding.rule)}</span><span class="tag">${escape(finding.category)}</span>
  <p>${escape(finding.description)}</p>
  <dl>${rows.map(([k, v]) => `<dt>${k}</dt><dd>${v}</dd>`).join("")}</dl>
  ${finding.html ? `<pre>${escape(finding.html)}</pre>` : ""}
  ${finding.recommendation ? `<p class="fix"><b>How to fix:</b> ${escape(finding.recommendation)}${finding.help_url ? ` <a href="${escape(finding.help_url)}">More</a>` : ""}</p>` : ""}
</article>`;
}

/** `images` maps a screenshot's name to its PNG bytes. */
export function html(result: TestResult, images: Map<string, Uint8Array>): string {
  const counts = Object.fromEntries(severities.map((s) => [s, result.findings.filter((f) => f.severity === s).length]));
  const ordered = [...result.findings].sort((a, b) => severities.indexOf(a.severity) - severities.indexOf(b.severity));
  const steps = result.steps
    ? `<h2>Steps</h2><table><thead><tr><th>#</th><th>Step</th><th>Result</th><th>Time</th><th>Error</th></tr></thead><tbody>${result.steps
        .map((s) => `<tr><td>${s.index + 1}</td><td>${escape(s.description)}</td><td class="${s.status}">${s.status}</td><td>${Math.round(s.duration_ms)} ms</td><td>${escape(s.error ?? "")}</td></tr>`)
        .join("")}</tbody></table>`
    : "";
  const shots = result.screenshots.filter((s) => images.has(s.name));
  const gallery = shots.length
    ? `<h2>Screenshots</h2><div class="shots">${shots
        .map((s) => `<figure><img alt="${escape(s.name)}" src="data:image/png;base64,${Buffer.from(images.get(s.name)!).toString("base64")}"><figcaption>${escape(s.viewport ?? s.name)}${s.width ? ` · ${s.width}×${s.height}` : ""}</figcaption></figure>`)
        .join("")}</div>`
    : "";
  const started = new Date(result.started_at);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escape(titles[result.test])}: ${escape(result.url)}</title><style>${style}</style></head>
<body><main>
<header><div><h1>${escape(titles[result.test])}</h1><div class="url">${escape(result.url)}</div>
<div class="meta">${escape(started.toUTCString())} · ${(result.duration / 1000).toFixed(1)} s · ${escape(result.id)}${typeof result.summary.standard === "string" ? ` · ${escape(result.summary.standard)}` : ""}</div></div>
<div class="verdict ${result.status}">${verdicts[result.status]}</div></header>
<section class="counts">${severities.map((s) => `<div class="count ${s}"><b>${counts[s]}</b><span>${s}</span></div>`).join("")}</section>
${steps}
<h2>Findings (${result.findings.length})</h2>
${ordered.length ? ordered.map(findingCard).join("\n") : '<p class="empty">Nothing found.</p>'}
${gallery}
</main></body></html>`;
}
