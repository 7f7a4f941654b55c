// Date formats of the specs: DD/MM/YYYY h:mm A in the admin and CRM lists,
// YYYY-MM-DD h:mm A in the client pages.
function parts(value: Date | string | number) {
  const d = value instanceof Date ? value : new Date(value);
  const pad = (n: number) => String(n).padStart(2, '0');
  const h = d.getHours();
  return { y: d.getFullYear(), m: pad(d.getMonth() + 1), d: pad(d.getDate()), h: h % 12 === 0 ? 12 : h % 12, min: pad(d.getMinutes()), a: h < 12 ? 'AM' : 'PM', ok: !Number.isNaN(d.getTime()) };
}

/** DD/MM/YYYY h:mm A */
export function formatDateTime(value: Date | string | number | null | undefined): string {
  if (value === null || value === undefined || value === '') return '';
  const p = parts(value);
  return p.ok ? `${p.d}/${p.m}/${p.y} ${p.h}:${p.min} ${p.a}` : '';
}

/** YYYY-MM-DD h:mm A */
export function formatClientDateTime(value: Date | string | number | null | undefined): string {
  if (value === null || value === undefined || value === '') return '';
  const p = parts(value);
  return p.ok ? `${p.y}-${p.m}-${p.d} ${p.h}:${p.min} ${p.a}` : '';
}
