import type { Meter } from '../meter';

export const SANDBOX = 'sandbox';

/**
 * One sandbox call. Free; or, on a meter with list prices (SANDBOX_LIST_PRICES=1), charged as its real
 * counterpart would be: `estimateUsd` (the list price at the size asked for) reserved first, the list
 * price of what it returned (`bill`) recorded, marked simulated.
 */
export async function charge<T>(
  meter: Meter,
  endpoint: string,
  estimateUsd: number,
  run: () => T,
  bill: (result: T) => number,
): Promise<T> {
  if (!meter.listPrices) {
    meter.record({ provider: SANDBOX, endpoint, cost_usd: 0 });
    return run();
  }
  const hold = await meter.reserve(estimateUsd, { provider: SANDBOX, endpoint }, false);
  let result: T;
  try {
    result = run();
  } catch (error) {
    meter.cancel(hold);
    throw error;
  }
  meter.record({ provider: SANDBOX, endpoint, cost_usd: bill(result), simulated: true }, hold);
  return result;
}
