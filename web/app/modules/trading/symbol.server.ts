// A symbol written by hand in a URL (/mobile-chart/EURUSD, EUR/USD, eur_usd, EUR-USD) found as
// the instrument it names: case, separators and spaces do not count; the exact name wins a tie.
import type { Sql } from '~/shared/db.server.ts';

/** The comparison key of a symbol: upper case letters and digits only ('' when unusable). */
export function symbolKey(symbol: string): string {
  const key = symbol.toUpperCase().replace(/[^A-Z0-9]/g, '');
  return key.length <= 32 ? key : '';
}

export interface InstrumentRef { name: string; label: string; digits: number }

export async function findInstrument(sql: Sql, symbol: string): Promise<InstrumentRef | null> {
  const key = symbolKey(symbol);
  if (!key) return null;
  const [i] = await sql`
    SELECT name, base, quote, digits FROM instruments
     WHERE regexp_replace(upper(name), '[^A-Z0-9]', '', 'g') = ${key}
        OR regexp_replace(upper(base || quote), '[^A-Z0-9]', '', 'g') = ${key}
     ORDER BY (name = ${symbol}) DESC, id LIMIT 1`;
  return i ? { name: i.name, label: `${i.base}/${i.quote}`, digits: Number(i.digits) } : null;
}
