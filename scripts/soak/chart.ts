import { format, lastThreeQuarters, slope, type Series, type Verdict } from './verdicts';

export const CHART = { width: 720, height: 300 } as const;
const PAD = { left: 64, right: 40, top: 34, bottom: 34 } as const;

const escape = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/**
 * One series as an SVG line chart: the samples, the first quarter shaded (the reference the
 * bounds are taken from), the least-squares fit over the last three quarters for the slope and
 * growth rules, the bound for the bounded ones; the verdict in the title.
 */
export function svgChart(series: Series, verdict: Verdict, duration: number): string {
  const { width, height } = CHART;
  const plotW = width - PAD.left - PAD.right;
  const plotH = height - PAD.top - PAD.bottom;
  const values = series.points.map((p) => p.v);
  const limit = series.rule.kind === 'bounded' ? boundOf(verdict) : undefined;
  // Counts are drawn from zero, against their bound; a level (heap, RSS, latency) is zoomed to its
  // own range, where a slope of a few MB on 200 MB is visible.
  const fromZero = series.rule.kind === 'bounded' || series.rule.kind === 'flat' || series.rule.kind === 'p99';
  let low = values.length ? Math.min(...values, ...(fromZero ? [0] : [])) : 0;
  let high = Math.max(low + 1e-9, ...values, ...(limit === undefined ? [] : [limit]));
  const margin = Math.max((high - low) * 0.1, fromZero ? 0 : Math.abs(high) * 0.005, 1e-9);
  high += margin;
  if (!fromZero || low < 0) low -= margin;
  const x = (t: number) => PAD.left + (Math.max(0, Math.min(duration, t)) / Math.max(duration, 1e-9)) * plotW;
  const y = (v: number) => PAD.top + plotH - ((v - low) / (high - low)) * plotH;
  const parts: string[] = [];
  parts.push(`<rect width="${width}" height="${height}" fill="#fff"/>`);
  parts.push(`<rect x="${x(0)}" y="${PAD.top}" width="${x(duration / 4) - x(0)}" height="${plotH}" fill="#eef2f7"/>`);
  parts.push(
    `<line x1="${PAD.left}" y1="${PAD.top + plotH}" x2="${PAD.left + plotW}" y2="${PAD.top + plotH}" stroke="#555"/>`,
    `<line x1="${PAD.left}" y1="${PAD.top}" x2="${PAD.left}" y2="${PAD.top + plotH}" stroke="#555"/>`,
  );
  for (const v of [low, low + (high - low) / 4, (low + high) / 2, low + ((high - low) * 3) / 4, high])
    parts.push(
      `<text x="${PAD.left - 6}" y="${y(v) + 4}" font-size="11" text-anchor="end">${escape(format(v))}</text>`,
    );
  for (const t of [0, duration / 4, duration / 2, (3 * duration) / 4, duration])
    parts.push(
      `<text x="${x(t)}" y="${height - 12}" font-size="11" text-anchor="middle">${escape(format(t / 60))} min</text>`,
    );
  if (limit !== undefined)
    parts.push(
      `<line x1="${x(0)}" y1="${y(limit)}" x2="${x(duration)}" y2="${y(limit)}" stroke="#c0392b" stroke-dasharray="6 4"/>`,
    );
  if (series.points.length)
    parts.push(
      `<polyline fill="none" stroke="#1f5fa8" stroke-width="1.6" points="${series.points
        .map((p) => `${x(p.t).toFixed(1)},${y(p.v).toFixed(1)}`)
        .join(' ')}"/>`,
    );
  const fit = fitLine(series, duration);
  if (fit)
    parts.push(
      `<line x1="${x(fit.from.t)}" y1="${y(fit.from.v)}" x2="${x(fit.to.t)}" y2="${y(fit.to.v)}" stroke="#e67e22" stroke-width="1.6"/>`,
    );
  for (const v of [low + (high - low) / 4, (low + high) / 2, low + ((high - low) * 3) / 4])
    parts.push(
      `<line x1="${PAD.left}" y1="${y(v)}" x2="${PAD.left + plotW}" y2="${y(v)}" stroke="#ddd" stroke-width="0.6"/>`,
    );
  const mark = verdict.ok === undefined ? '' : verdict.ok ? ' — PASS' : ' — FAIL';
  parts.push(
    `<text x="${PAD.left}" y="20" font-size="14" font-weight="bold">${escape(`${series.name}${series.unit ? ` (${series.unit})` : ''}${mark}`)}</text>`,
  );
  if (verdict.detail)
    parts.push(
      `<text x="${width - PAD.right}" y="20" font-size="11" text-anchor="end">${escape(verdict.detail.slice(0, 80))}</text>`,
    );
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif">${parts.join('')}</svg>`;
}

/** The least-squares line over the last three quarters (slope and growth rules only). */
function fitLine(series: Series, duration: number) {
  if (series.rule.kind !== 'slope' && series.rule.kind !== 'flat') return undefined;
  const tail = lastThreeQuarters(series.points, duration);
  const perSecond = slope(tail);
  if (perSecond === undefined) return undefined;
  const meanT = tail.reduce((s, p) => s + p.t, 0) / tail.length;
  const meanV = tail.reduce((s, p) => s + p.v, 0) / tail.length;
  const at = (t: number) => ({ t, v: meanV + perSecond * (t - meanT) });
  return { from: at(tail[0]!.t), to: at(tail.at(-1)!.t) };
}

/** The number a bounded verdict compared against (`max <= 42 (...)`). */
function boundOf(verdict: Verdict): number | undefined {
  const match = /max <= ([\d.]+)/.exec(verdict.bound);
  return match ? Number(match[1]) : undefined;
}
