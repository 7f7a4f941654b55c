-- Up Migration
-- The staff trade lists (/admin/trades/all|open|closed, docs/specs.md#admin-trades) page by id
-- and filter by user, instrument, side and open time. A page's ids are read from an index alone
-- (an index-only scan, however deep the page) and only those rows are fetched, so each list has
-- an index holding the columns it filters on:
--   orders_list_idx: every live trade by id (the all and closed lists, their side and open-time
--     filters and counts);
--   orders_instrument_list_idx: one instrument's trades by id (the instrument filter);
--   orders_open_list_idx: the open trades by id, replacing orders_open_idx (same key and
--     predicate, so the engine's reads of open positions use it as before) with the filter columns;
--   a user's trades already have orders_balance_idx.
-- All are partial (deleted trades are never listed). Each open adds two index entries more than
-- before, each close one (a close is not a HOT update: close_time is in the indexes' predicates).
CREATE INDEX orders_list_idx ON orders (id) INCLUDE (close_time, instrument_id, type, created_at) WHERE deleted_at IS NULL;
CREATE INDEX orders_instrument_list_idx ON orders (instrument_id, id) INCLUDE (close_time, type, created_at) WHERE deleted_at IS NULL;
CREATE INDEX orders_open_list_idx ON orders (id) INCLUDE (instrument_id, type, created_at) WHERE close_time IS NULL AND deleted_at IS NULL;
DROP INDEX orders_open_idx;

-- Down Migration
CREATE INDEX orders_open_idx ON orders (id DESC) WHERE close_time IS NULL AND deleted_at IS NULL;
DROP INDEX IF EXISTS orders_open_list_idx;
DROP INDEX IF EXISTS orders_instrument_list_idx;
DROP INDEX IF EXISTS orders_list_idx;
