import type { MetricName } from '@cm/contract';
import { Meter } from '@cm/providers';
import { runMonitorWorker, runRankWorker } from '@cm/tools';

/* A worker's run reports what its meter counted whether it ended or failed, also when its provider could not be had. */

function observed() {
  const metrics: { name: MetricName; value?: number; dimensions?: Record<string, string> }[] = [];
  const log = { info: () => undefined, warn: () => undefined };
  return {
    metrics,
    observation: {
      log,
      metric: (name: MetricName, value?: number, dimensions?: Record<string, string>) =>
        void metrics.push({ name, value, dimensions }),
    },
  };
}

const noProvider = () => Promise.reject(new Error('the provider secret cannot be read'));

it.each([
  [
    'rank',
    'rank_tracking',
    (meter: Meter, o: ReturnType<typeof observed>['observation']) =>
      runRankWorker(meter, noProvider, { site_id: 1, day: '2026-11-29', requested_at: '2026-11-29T00:00:00Z' }, o),
  ],
  [
    'monitor',
    'monitor',
    (meter: Meter, o: ReturnType<typeof observed>['observation']) =>
      runMonitorWorker(meter, noProvider, { site_id: 1, requested_at: '2026-11-29T00:00:00Z' }, o),
  ],
])(
  'the %s worker records its provider cost when its provider cannot be had, and fails the record',
  async (_w, tool, run) => {
    const { metrics, observation } = observed();
    await expect(run(new Meter(), observation)).rejects.toThrow('the provider secret cannot be read');
    expect(metrics).toEqual([{ name: 'provider_cost_usd', value: 0, dimensions: { tool } }]);
  },
);
