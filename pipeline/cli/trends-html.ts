import type { Trends } from '../memory/trends.js';

/**
 * `report --html`: one self-contained page (inline SVG and CSS, no script, no network) with the trends a
 * reviewer asks about: are failures falling night after night, what the lifecycle did, did each rule work.
 * Every label is log-derived text: it is escaped, and control characters are dropped.
 */
export function renderTrendsHtml(trends: Trends, title: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${esc(title)}</title>
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222;background:#fff}
h1{font-size:20px}h2{font-size:16px;margin-top:28px}
.legend span{display:inline-block;margin-right:14px}.legend i{display:inline-block;width:10px;height:10px;margin-right:4px}
.empty{color:#777;font-style:italic}svg text{font-size:11px;fill:#444}
</style></head><body>
<h1>${esc(title)}</h1>
<h2>Failures per night</h2>
${failuresChart(trends)}
<h2>Rules added, archived and restored per run</h2>
${lifecycleChart(trends)}
<h2>Each rule's failures a day, before and after adoption</h2>
${effectivenessChart(trends)}
</body></html>
`;
}

// Cluster lines avoid the colours the other charts mean something by (added green, before-adoption red, archived grey).
const PALETTE = ['#1f77b4', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#17becf', '#bcbd22', '#393b79'];
const W = 720;
const H = 240;
const PAD = { left: 48, right: 16, top: 12, bottom: 36 };

function failuresChart(t: Trends): string {
  if (t.nights.length === 0) return empty('No night has been recorded yet: run `sleep-cycle run` for a few nights.');
  const series = [{ label: 'all failures', color: '#333333', values: t.nights.map((n) => n.failures) },
    ...t.clusters.map((c, i) => ({ label: c.label, color: PALETTE[i % PALETTE.length]!, values: c.counts }))];
  const max = Math.max(1, ...series.flatMap((s) => s.values));
  const x = (i: number) => PAD.left + (t.nights.length === 1 ? (W - PAD.left - PAD.right) / 2 : (i * (W - PAD.left - PAD.right)) / (t.nights.length - 1));
  const y = (v: number) => H - PAD.bottom - (v / max) * (H - PAD.top - PAD.bottom);
  const lines = series.map((s) => {
    const points = s.values.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(' ');
    const dots = s.values.map((v, i) => `<circle cx="${x(i).toFixed(1)}" cy="${y(v).toFixed(1)}" r="3" fill="${s.color}"/>`).join('');
    return `<polyline points="${points}" fill="none" stroke="${s.color}" stroke-width="2"/>${dots}`;
  }).join('\n');
  const labels = t.nights.map((n, i) => (i % Math.ceil(t.nights.length / 10) === 0 ? `<text x="${x(i).toFixed(1)}" y="${H - 14}" text-anchor="middle">${esc(n.time.slice(5, 10))}</text>` : '')).join('');
  return `${svg('failures', `${axes(max)}${lines}${labels}`)}\n${legend(series)}`;
}

function lifecycleChart(t: Trends): string {
  if (t.runs.length === 0) return empty('No run has added, archived or restored a rule yet.');
  const kinds = [['added', '#2ca02c'], ['archived', '#7f7f7f'], ['restored', '#1f77b4']] as const;
  const max = Math.max(1, ...t.runs.flatMap((r) => kinds.map(([k]) => r[k])));
  const slot = (W - PAD.left - PAD.right) / t.runs.length;
  const bar = Math.max(2, Math.min(18, slot / 4));
  const bars = t.runs.map((r, i) => kinds.map(([k, color], j) => {
    const h = (r[k] / max) * (H - PAD.top - PAD.bottom);
    const x = PAD.left + i * slot + slot / 2 + (j - 1.5) * bar;
    return `<rect x="${x.toFixed(1)}" y="${(H - PAD.bottom - h).toFixed(1)}" width="${bar.toFixed(1)}" height="${h.toFixed(1)}" fill="${color}"><title>${esc(`${r.time.slice(0, 10)}: ${r[k]} ${k}`)}</title></rect>`;
  }).join('')).join('\n');
  const labels = t.runs.map((r, i) => (i % Math.ceil(t.runs.length / 10) === 0 ? `<text x="${(PAD.left + i * slot + slot / 2).toFixed(1)}" y="${H - 14}" text-anchor="middle">${esc(r.time.slice(5, 10))}</text>` : '')).join('');
  return `${svg('lifecycle', `${axes(max)}${bars}${labels}`)}\n${legend(kinds.map(([label, color]) => ({ label, color })))}`;
}

function effectivenessChart(t: Trends): string {
  if (t.rules.length === 0) return empty('No rule has been in memory long enough to measure (effectiveness_days).');
  const rows = t.rules.slice(0, 20);
  const max = Math.max(0.001, ...rows.flatMap((r) => [r.before_per_day, r.after_per_day]));
  const rowH = 22;
  const height = PAD.top + rows.length * rowH + 8;
  const left = 260;
  const scale = (v: number) => (v / max) * (W - left - PAD.right);
  const bars = rows.map((r, i) => {
    const top = PAD.top + i * rowH;
    return `<text x="${left - 6}" y="${top + 13}" text-anchor="end">${esc(clip(`${r.id} ${r.label}`, 40))}</text>` +
      `<rect x="${left}" y="${top + 2}" width="${scale(r.before_per_day).toFixed(1)}" height="8" fill="#d62728"><title>${esc(`before: ${r.before_per_day.toFixed(2)} a day`)}</title></rect>` +
      `<rect x="${left}" y="${top + 11}" width="${scale(r.after_per_day).toFixed(1)}" height="8" fill="#2ca02c"><title>${esc(`after: ${r.after_per_day.toFixed(2)} a day (${r.verdict})`)}</title></rect>`;
  }).join('\n');
  return `${svg('effectiveness', bars, height)}\n${legend([{ label: 'before adoption', color: '#d62728' }, { label: 'after adoption', color: '#2ca02c' }])}`;
}

function svg(name: string, body: string, height = H): string {
  return `<svg data-chart="${name}" width="${W}" height="${height}" viewBox="0 0 ${W} ${height}" role="img">${body}</svg>`;
}

function axes(max: number): string {
  const base = H - PAD.bottom;
  return `<line x1="${PAD.left}" y1="${PAD.top}" x2="${PAD.left}" y2="${base}" stroke="#999"/>` +
    `<line x1="${PAD.left}" y1="${base}" x2="${W - PAD.right}" y2="${base}" stroke="#999"/>` +
    `<text x="${PAD.left - 6}" y="${PAD.top + 10}" text-anchor="end">${max}</text><text x="${PAD.left - 6}" y="${base}" text-anchor="end">0</text>`;
}

function legend(items: { label: string; color: string }[]): string {
  return `<div class="legend">${items.map((s) => `<span><i style="background:${s.color}"></i>${esc(clip(s.label, 80))}</span>`).join('')}</div>`;
}

function empty(text: string): string {
  return `<p class="empty">${esc(text)}</p>`;
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** HTML-escaped, without control characters (C0, C1, bidi overrides): labels come from logs. */
function esc(text: string): string {
  return text
    .replace(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, '')
    .replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}
