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

/** The next animation frame, or `ms` later where frames are held back (a hidden frame or tab). */
const nextFrame = (ms = 250) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    requestAnimationFrame(() => {
      clearTimeout(timer);
      resolve();
    });
  });

/**
 * Draws the charts made since the last call whose figures are now in the document (Chart.js measures
 * its container), and resolves once they have settled: Chart.js sizes a canvas again from its resize
 * observer, on the frame after the one it was made in, and a resized canvas is blank until it redraws.
 * What waits for a view to be drawn (aria-busy) waits for this.
 */
export async function mountCharts(): Promise<void> {
  let made = 0;
  for (const [canvas, config] of pending) {
    if (!canvas.isConnected) continue;
    pending.delete(canvas);
    live.add(new Chart(canvas, config));
    made += 1;
  }
  if (made === 0) return;
  await nextFrame();
  await nextFrame();
}

/** Frees the charts of the view being left. */
export function destroyCharts(): void {
  for (const chart of live) chart.destroy();
  live.clear();
  pending.clear();
}
