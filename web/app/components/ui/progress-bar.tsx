// A determinate progress bar (the CSV import, a large bulk action): the percentage drawn, the
// words read out by assistive technology (aria-valuetext).
export function ProgressBar({ label, pct, text }: { label: string; pct: number; text: string }) {
  const value = Math.max(0, Math.min(100, Math.round(pct)));
  return (
    <div className="progress-bar" role="progressbar" aria-label={label} aria-valuemin={0} aria-valuemax={100} aria-valuenow={value} aria-valuetext={text}>
      <span style={{ width: `${value}%` }} />
    </div>
  );
}
