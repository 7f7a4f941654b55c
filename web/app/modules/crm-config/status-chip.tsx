// A sales status as the lead lists and the status page show it: a chip in the status's colour
// with black or white text, whichever is readable on it (colors.ts).
import { chipTextColor, DEFAULT_STATUS_COLOR, HEX_COLOR } from './colors.ts';

export function StatusChip({ status, color }: { status: string; color?: string | null }) {
  const background = color && HEX_COLOR.test(color) ? color : DEFAULT_STATUS_COLOR;
  return <span className="chip status-chip" style={{ background, color: chipTextColor(background) }}>{status}</span>;
}
