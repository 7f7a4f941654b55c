-- Up Migration
-- The progress of a long set-based statement (web/app/utils/statement-progress.server.ts): a bulk
-- move of 100,000 leads is one UPDATE, and docs/specs.md#crm-lead-lists asks that the agent see its progress. The
-- statement calls statement_progress_tick in its SET list (once per changed row, ~1.6 µs); every
-- `every` rows it raises a NOTICE, which reaches the web process at once, outside the transaction;
-- the web process records the count here for the page's poll.
CREATE TABLE statement_progress (
  token       uuid PRIMARY KEY,
  actor_id    bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  done        bigint NOT NULL DEFAULT 0,
  total       bigint NOT NULL,
  started_at  timestamptz NOT NULL DEFAULT now(),
  finished_at timestamptz
);
CREATE INDEX statement_progress_actor_idx ON statement_progress (actor_id);
CREATE INDEX statement_progress_started_idx ON statement_progress (started_at);

CREATE FUNCTION statement_progress_tick(token uuid, every bigint) RETURNS timestamptz LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  n bigint := coalesce(nullif(current_setting('statement_progress.rows', true), ''), '0')::bigint + 1;
BEGIN
  PERFORM set_config('statement_progress.rows', n::text, true);
  IF n % every = 0 THEN
    RAISE NOTICE 'progress:%:%', token, n;
  END IF;
  RETURN now();
END $$;

-- Down Migration
DROP FUNCTION statement_progress_tick(uuid, bigint);
DROP TABLE statement_progress;
