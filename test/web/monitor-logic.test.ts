// The dashboard's pure rules: range validation, buckets, gap-free series, totals, histogram
// percentiles.
import { describe, expect, it } from 'vitest';
import { must } from '../../src/core/must.ts';
import {
  allTimeFrom,
  bucketMsFor,
  buildSeries,
  DAY_MS,
  endOfHour,
  HOUR_MS,
  histogramPercentile,
  rangeEnd,
  rollupKey,
  totalsOf,
  validateDashboardFilter,
  WEEK_MS,
  wholeHours,
} from '../../src/monitor/dashboard.ts';

const at = (iso: string) => new Date(iso);
const filter = (from: string, to: string) => ({ from: at(from), to: at(to), taskType: null, domain: null });

describe('dashboard rules', () => {
  it('validates the range and the filter texts, naming field and limit', () => {
    expect(validateDashboardFilter(filter('2026-01-01T00:00:00Z', '2026-01-02T00:00:00Z'))).toEqual([]);
    expect(validateDashboardFilter(filter('2026-01-02T00:00:00Z', '2026-01-02T00:00:00Z')).map((v) => v.field)).toEqual(['filter.to']);
    expect(validateDashboardFilter(filter('2025-01-01T00:00:00Z', '2026-01-03T00:00:00Z'))).toEqual([]); // a year of imported history
    expect(validateDashboardFilter(filter('2016-01-01T00:00:00Z', '2026-01-03T00:00:00Z'))[0]).toMatchObject({
      field: 'filter.to',
      limit: '3653 days after filter.from',
    });
    expect(validateDashboardFilter({ ...filter('2026-01-01T00:00:00Z', '2026-01-02T00:00:00Z'), taskType: 'x'.repeat(201) })[0]).toMatchObject({
      field: 'filter.taskType',
      limit: '200 characters',
      actual: '201',
    });
  });

  it('cuts up to 14 days into hours and longer ranges into days, widened to whole hours', () => {
    expect(bucketMsFor(filter('2026-01-01T00:00:00Z', '2026-01-15T00:00:00Z'))).toBe(HOUR_MS);
    expect(bucketMsFor(filter('2026-01-01T00:00:00Z', '2026-01-15T01:00:00Z'))).toBe(DAY_MS);
    expect(bucketMsFor(filter('2024-01-01T00:00:00Z', '2026-01-01T00:00:00Z'))).toBe(DAY_MS); // 731 days
    expect(bucketMsFor(filter('2024-01-01T00:00:00Z', '2026-01-02T00:00:00Z'))).toBe(WEEK_MS);
    expect(wholeHours(filter('2026-01-01T10:20:00Z', '2026-01-01T12:00:01Z'))).toMatchObject({
      from: at('2026-01-01T10:00:00Z'),
      to: at('2026-01-01T13:00:00Z'),
    });
  });

  it('starts "all time" at the hour of the first run, or a day back when there is none', () => {
    expect(allTimeFrom(at('2025-11-18T22:55:07Z'), at('2026-11-26T15:00:00Z'))).toEqual(at('2025-11-18T22:00:00Z'));
    expect(allTimeFrom(null, at('2026-11-26T15:00:00Z'))).toEqual(at('2026-11-25T15:00:00Z'));
    expect(allTimeFrom(at('2026-11-26T14:59:00Z'), at('2026-11-26T15:00:00Z'))).toEqual(at('2026-11-26T14:00:00Z'));
    expect(allTimeFrom(at('2026-11-27T00:00:00Z'), at('2026-11-26T15:00:00Z'))).toEqual(at('2026-11-26T14:00:00Z')); // never an empty range
  });

  it('ends a range without `to` after the latest run for all time, else at the end of the current hour', () => {
    const now = at('2026-11-26T14:20:00Z');
    expect(endOfHour(at('2026-11-26T14:00:00Z'))).toEqual(at('2026-11-26T15:00:00Z'));
    expect(rangeEnd(at('2025-11-20T08:59:59Z'), true, now)).toEqual(at('2025-11-20T09:00:00Z'));
    expect(rangeEnd(at('2025-11-20T08:59:59Z'), false, now)).toEqual(at('2026-11-26T15:00:00Z'));
    expect(rangeEnd(null, true, now)).toEqual(at('2026-11-26T15:00:00Z'));
  });

  it('fills every bucket, merges sources and totals them; partial outcomes are not successes', () => {
    const f = filter('2026-01-01T00:00:00Z', '2026-01-01T03:00:00Z');
    const series = buildSeries(f, HOUR_MS, [
      [{ start: at('2026-01-01T01:00:00Z'), runs: 3, successes: 1, partials: 1, failures: 1, byStatus: { completed: 2 } }],
      [
        { start: at('2026-01-01T01:00:00Z'), budgetExhaustions: 1 },
        { start: at('2026-01-01T05:00:00Z'), budgetExhaustions: 9 },
      ],
    ]);
    expect(series.map((b) => [b.start.toISOString(), b.runs, b.budgetExhaustions])).toEqual([
      ['2026-01-01T00:00:00.000Z', 0, 0],
      ['2026-01-01T01:00:00.000Z', 3, 1],
      ['2026-01-01T02:00:00.000Z', 0, 0],
    ]);
    expect(totalsOf(series)).toMatchObject({ runs: 3, ended: 3, successRate: 1 / 3, budgetExhaustions: 1 });
    expect(totalsOf([]).successRate).toBeNull();
  });

  it('reads percentiles from a histogram to within one bucket', () => {
    const bucketOf = (ms: number) => Math.ceil(Math.log(ms) / Math.log(1.1));
    const samples = Array.from({ length: 1000 }, (_, i) => 10 + i * 3);
    const counts = new Map<number, number>();
    for (const s of samples) counts.set(bucketOf(s), (counts.get(bucketOf(s)) ?? 0) + 1);
    const histogram = [...counts].map(([bucket, count]) => ({ bucket, count }));
    for (const [p, exact] of [
      [0.5, must(samples[499])],
      [0.95, must(samples[949])],
    ] as const) {
      const estimate = must(histogramPercentile(histogram, p, 1.1));
      expect(Math.abs(estimate - exact) / exact).toBeLessThan(0.1);
    }
    expect(histogramPercentile([], 0.5, 1.1)).toBeNull();
    expect(histogramPercentile([{ bucket: 0, count: 4 }], 0.5, 1.1)).toBeLessThanOrEqual(1);
  });

  it('keys the rollup by the filter', () => {
    expect(rollupKey({ taskType: null, domain: null })).toEqual({ dimension: 'all', value: '' });
    expect(rollupKey({ taskType: 'bugfix', domain: null })).toEqual({ dimension: 'task_type', value: 'bugfix' });
    expect(rollupKey({ taskType: 'bugfix', domain: 'a/b' })).toEqual({ dimension: 'task_type_domain', value: 'bugfix\u001fa/b' });
  });
});
