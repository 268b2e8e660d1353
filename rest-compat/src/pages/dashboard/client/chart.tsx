import {
  BarController,
  BarElement,
  CategoryScale,
  Chart,
  LinearScale,
  LineController,
  LineElement,
  PointElement,
  Tooltip,
  type ChartConfiguration,
} from 'chart.js';
import { useEffect, useRef } from 'preact/hooks';

/*
 * Chart.js 4, registered piece by piece so the bundle holds only what the home view draws (bars,
 * a line, two axis kinds, tooltips); esbuild drops the rest. It draws on a canvas and sets sizes
 * through the CSSOM only (no style element, no inline markup), which the page's nonce CSP allows.
 */
Chart.register(
  BarController,
  BarElement,
  CategoryScale,
  LinearScale,
  LineController,
  LineElement,
  PointElement,
  Tooltip,
);

export { CHART_COLORS } from './chart-colors';

/** Options every chart here shares: sized by its box (CSS), drawn at once (no animation to wait for). */
export function baseOptions(): NonNullable<ChartConfiguration['options']> {
  return {
    responsive: true,
    maintainAspectRatio: false,
    animation: false,
    plugins: { tooltip: { enabled: true } },
  };
}

/**
 * One chart on a canvas, kept while the view is shown and fed new data in place (a refresh does not
 * rebuild it). `summary` is what the chart says in words: the canvas's accessible name, and what a
 * test or a screen reader reads.
 */
export function ChartCanvas({ id, config, summary }: { id: string; config: ChartConfiguration; summary: string }) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const chart = useRef<Chart | null>(null);
  useEffect(() => {
    chart.current = new Chart(canvas.current!, config);
    return () => {
      chart.current?.destroy();
      chart.current = null;
    };
  }, []);
  useEffect(() => {
    const current = chart.current;
    if (!current) return;
    current.data = config.data;
    if (config.options) current.options = config.options;
    current.update();
  }, [config]);
  return (
    <div class="chart-box">
      <canvas ref={canvas} id={id} role="img" aria-label={summary} data-summary={summary} />
    </div>
  );
}
