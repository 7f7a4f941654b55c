/**
 * Up to this many matching rows a list's total is counted exactly; above it, it is PostgreSQL's
 * estimate and the page says so (shared/bounded-count.server.ts). Read by pages too, hence not .server.
 */
export const EXACT_COUNT_LIMIT = 50_000;
