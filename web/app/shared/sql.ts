// The database types every module takes (no connection here: db.server.ts opens the pool).
import type postgres from 'postgres';

/** int8 reads as a number, or its exact string beyond 2^53 (db.server.ts). */
type Types = { bigint: bigint | number | string };

/** The pool: what a function takes when it opens its own transaction (`sql.begin`). */
export type Sql = postgres.Sql<Types>;

/**
 * What a statement runs on: the pool or a transaction (postgres.js's common base of both). A
 * function that only runs statements takes `Db`, so a caller's transaction is handed as it is.
 */
export type Db = postgres.ISql<Types>;
