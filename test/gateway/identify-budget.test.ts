import { describe, expect, it } from 'vitest';
import { LocalIdentifyBudget } from '../../src/gateway/identify-budget.js';
import { IdentifyBudgetExhaustedError } from '../../src/gateway/errors.js';

const limit = (remaining: number, resetAfter = 60_000, total = 1000) => ({
  total,
  remaining,
  reset_after: resetAfter,
  max_concurrency: 1,
});

describe('LocalIdentifyBudget', () => {
  it('keeps 5% of the total in reserve by default and refuses the identify that would go below it', async () => {
    let now = 0;
    const budget = new LocalIdentifyBudget({ now: () => now });
    budget.update(limit(52));
    expect(budget.snapshot()).toEqual({ remaining: 52, total: 1000, reserve: 50, resetInMs: 60_000 });
    expect(await budget.available()).toBe(2);
    await budget.take(0);
    await budget.take(1);
    const error = await budget.take(2).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(IdentifyBudgetExhaustedError);
    expect(error).toMatchObject({ shardId: 2, remaining: 50, reserve: 50, resetAfterMs: 60_000 });
    expect((error as Error).message).toMatch(/Shard 2 stopped instead of identifying: only 50 .* resets in 1 min/);
    // The window resets: without a way to ask the service, the budget is assumed full again.
    now = 60_000;
    await budget.take(2);
    expect(budget.snapshot().remaining).toBe(999);
  });

  it('asks the service once the window is over, and once more before refusing', async () => {
    let now = 0;
    const answers = [limit(700, 10_000), limit(1, 10_000), limit(1000, 86_400_000)];
    let asked = 0;
    const budget = new LocalIdentifyBudget({ reserve: 1, now: () => now, refresh: async () => answers[asked++]! });
    budget.update(limit(5, 1_000));
    await budget.take(0);
    expect(asked).toBe(0);
    now = 1_000;
    await budget.take(0); // window over: asks (700 left)
    expect(asked).toBe(1);
    expect(budget.snapshot().remaining).toBe(699);
    now = 11_000;
    // Over again: asks, learns 1 left (= the reserve), asks once more before refusing, and is told 1000.
    await budget.take(0);
    expect(asked).toBe(3);
    expect(budget.snapshot().remaining).toBe(999);
  });

  it('shares one refresh between shards asking together, and counts each identify once', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let asked = 0;
    let now = 0;
    const budget = new LocalIdentifyBudget({
      reserve: 0,
      now: () => now,
      // The service: 3 left at the window's start, none once the three identifies went out.
      refresh: async () => {
        asked++;
        await gate;
        return limit(asked === 1 ? 3 : 0, 60_000);
      },
    });
    budget.update(limit(10, 100));
    now = 200;
    const takes = [0, 1, 2, 3].map((id) => budget.take(id).then(() => 'ok', (e: unknown) => e));
    await Promise.resolve();
    release();
    const outcomes = await Promise.all(takes);
    // One refresh for the four at the window's end, one more before refusing the fourth.
    expect(asked).toBe(2);
    expect(outcomes.filter((o) => o === 'ok')).toHaveLength(3);
    expect(outcomes.filter((o) => o instanceof IdentifyBudgetExhaustedError)).toHaveLength(1);
    expect(budget.snapshot().remaining).toBe(0);
  });
});
