/** Up to this many matching trades a list's total is counted; above it, it is PostgreSQL's estimate (the page says so). */
export const EXACT_COUNT_LIMIT = 50_000;
