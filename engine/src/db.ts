import postgres from 'postgres';

export type Sql = postgres.Sql;

export function connect(url: string, opts: { max?: number } = {}): Sql {
  return postgres(url, {
    max: opts.max ?? 20,
    onnotice: () => {},
    // numeric stays a string: money is never a JS float when stored or settled
    types: { bigint: postgres.BigInt },
  });
}
