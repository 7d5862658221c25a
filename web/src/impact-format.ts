// How the experiments panel writes memoryImpact's numbers (and what its browser test compares the
// page with): rates and differences in percent and points, p-values to two significant digits.

export const percent = (rate: number | null | undefined) => (rate === null || rate === undefined ? '–' : `${(rate * 100).toFixed(1)} %`);

/** A difference of rates in percentage points, signed. */
export const points = (difference: number | null | undefined) => {
  if (difference === null || difference === undefined) return '–';
  const value = (difference * 100).toFixed(1);
  return `${difference >= 0 ? '+' : ''}${value} points`;
};

export const pValue = (p: number | null | undefined) => {
  if (p === null || p === undefined) return '–';
  return p < 0.001 ? 'p < 0.001' : `p = ${p.toPrecision(2)}`;
};

/** A holdout's control: its share and what it is served; an interleaving's: the ranking drafted against. */
export const controlLabel = (kind: string | null, share: number | null, control: string | null) => {
  const arm = (control ?? 'NOTHING').toLowerCase().replace(/_/g, ' ');
  return kind === 'INTERLEAVE' ? `interleaved with ${arm}` : `${Math.round((share ?? 0) * 100)} % served ${arm}`;
};
