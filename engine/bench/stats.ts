// Percentiles over sorted samples, for the benchmarks' figures.
export function percentile(sorted: Float64Array | number[], p: number): number {
  if (!sorted.length) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}
