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
import { h } from './dom';

// Only the parts drawn here: bars, lines, their two scales and the tooltip (no date adapter, no legend plugin: legends are tables).
Chart.register(
  BarController,
  BarElement,
  LineController,
  LineElement,
  PointElement,
  CategoryScale,
  LinearScale,
  Tooltip,
);
Chart.defaults.font.family = 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
Chart.defaults.color = '#334155';
// Drawn at once: nothing to wait for, and what is on the canvas is what the table next to it says.
Chart.defaults.animation = false;

const live = new Set<Chart>();
const pending = new Map<HTMLCanvasElement, ChartConfiguration>();

/**
 * A chart in a figure, described for screen readers by `summary` (its data is in the table beside it).
 * `name` marks the canvas for tests and styles.
 */
export function chartFigure(name: string, summary: string, config: ChartConfiguration): HTMLElement {
  const canvas = h('canvas', { attrs: { role: 'img', 'aria-label': summary, 'data-chart': name } });
  const figure = h('figure', { class: `chart chart-${name}` }, h('div', { class: 'chart-box' }, canvas));
  pending.set(canvas, config);
  return figure;
}

/** Draws the charts made since the last call whose figures are now in the document (Chart.js measures its container). */
export function mountCharts(): void {
  for (const [canvas, config] of pending) {
    if (!canvas.isConnected) continue;
    pending.delete(canvas);
    live.add(new Chart(canvas, config));
  }
}

/** Frees the charts of the view being left. */
export function destroyCharts(): void {
  for (const chart of live) chart.destroy();
  live.clear();
  pending.clear();
}
