import { Meter, OutOfTime, type Hold, type PendingLedger, type SpendGuard } from '@cm/providers';

/* The meter's pending lines: written with each paid call's hold, released or settled after it, none once the run is out of time. */

const CALL = { provider: 'dataforseo', endpoint: 'serp/google/organic/live/advanced' };

function fakes(options: { refuse?: boolean; failOpen?: boolean } = {}) {
  const settles: number[] = [];
  const opened: string[] = [];
  const released: string[] = [];
  const guard: SpendGuard = {
    reserve: async (): Promise<Hold> => {
      if (options.refuse) throw new Error('budget_exceeded');
      return { settle: async (billed) => void settles.push(billed) };
    },
  };
  const ledger: PendingLedger = {
    open: async (call) => {
      if (options.failOpen) throw new Error('ledger unavailable');
      opened.push(`${call.endpoint}@${call.cost_usd}`);
      return `line-${opened.length}`;
    },
    release: async (line) => void released.push(line),
  };
  return { guard, ledger, settles, opened, released };
}

it('starts no paid call once its run is out of time: no hold, no line', async () => {
  const { guard, ledger, settles, opened } = fakes();
  const run = new AbortController();
  run.abort();
  const meter = new Meter({ guard, ledger, signal: run.signal });
  await expect(meter.reserve(0.01, CALL)).rejects.toBeInstanceOf(OutOfTime);
  expect([settles, opened]).toEqual([[], []]);
});

it('releases the pending line of a call its budget refused, and cancels the hold of a call whose line could not be written', async () => {
  const refused = fakes({ refuse: true });
  const meter = new Meter({ guard: refused.guard, ledger: refused.ledger });
  await expect(meter.reserve(0.01, CALL)).rejects.toThrow('budget_exceeded');
  await meter.settled();
  expect(refused.released).toEqual(['line-1']);

  const unwritten = fakes({ failOpen: true });
  const other = new Meter({ guard: unwritten.guard, ledger: unwritten.ledger });
  await expect(other.reserve(0.01, CALL)).rejects.toThrow('ledger unavailable');
  await other.settled();
  expect(unwritten.settles).toEqual([0]);
});

it('settles a pending line into the first line of a call billed item by item, and releases it when there is none', async () => {
  const { guard, ledger, settles } = fakes();
  const meter = new Meter({ guard, ledger });
  meter.recordEach(
    [
      { ...CALL, cost_usd: 0.002 },
      { ...CALL, cost_usd: 0.003 },
    ],
    await meter.reserve(0.01, CALL),
  );
  meter.recordEach([], await meter.reserve(0.01, CALL));
  await meter.settled();
  expect(meter.calls.map((call) => call.line)).toEqual(['line-1', undefined]);
  expect(meter.released).toEqual(['line-2']);
  expect(settles).toEqual([0.005, 0]);
});

it('writes lines only where it was told, once a worker knows whose calls they are', async () => {
  const { ledger, opened } = fakes();
  const meter = new Meter();
  expect(await meter.reserve(0.01, CALL)).toBeNull();
  meter.writeLinesTo(ledger);
  expect(await meter.reserve(0.01, CALL)).toEqual({ hold: null, line: 'line-1' });
  expect(opened).toEqual([`${CALL.endpoint}@0.01`]);
});
