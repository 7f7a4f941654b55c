-- Up Migration
-- /admin/deposits at 100,000 customers (docs/specs.md#money): the search by the start of a
-- provider's reference, and a status filter sorted by date. The other filters and sorts already
-- have theirs: (status, id DESC), (user_id, id DESC), (created_at DESC, id DESC), the primary key,
-- and users' email pattern index for the search by email.
CREATE INDEX deposits_reference_pattern_idx ON deposits (reference text_pattern_ops) WHERE reference IS NOT NULL;
CREATE INDEX deposits_status_created_at_idx ON deposits (status, created_at DESC, id DESC);

-- Down Migration
DROP INDEX IF EXISTS deposits_reference_pattern_idx, deposits_status_created_at_idx;
