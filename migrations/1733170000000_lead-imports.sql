-- Up Migration
-- CSV lead imports (issue 15): one row per import, run as a background job of a web process.
-- A worker claims a queued (or stale running) import with FOR UPDATE SKIP LOCKED and stamps its
-- token; every batch of rows commits with the counters and the heartbeat, so an interrupted import
-- resumes after rows_read. Every row not created (invalid or duplicate) is kept with its reason.
CREATE TABLE lead_imports (
  id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  upload_id     bigint NOT NULL REFERENCES uploads (id),
  created_by    bigint NOT NULL REFERENCES users (id),
  status        text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'running', 'done', 'failed')),
  header        jsonb,
  delimiter     text,
  total_rows    int,
  rows_read     int NOT NULL DEFAULT 0,
  created       int NOT NULL DEFAULT 0,
  duplicates    int NOT NULL DEFAULT 0,
  errors        int NOT NULL DEFAULT 0,
  message       text,
  worker        text,
  attempts      int NOT NULL DEFAULT 0,
  heartbeat_at  timestamptz,
  created_at    timestamptz NOT NULL DEFAULT now(),
  started_at    timestamptz,
  finished_at   timestamptz
);
CREATE INDEX lead_imports_pending_idx ON lead_imports (id) WHERE status IN ('queued', 'running');
CREATE INDEX lead_imports_user_idx ON lead_imports (created_by, id DESC);
CREATE INDEX lead_imports_upload_idx ON lead_imports (upload_id);

CREATE TABLE lead_import_errors (
  import_id  bigint NOT NULL REFERENCES lead_imports (id) ON DELETE CASCADE,
  row_no     int NOT NULL,
  kind       text NOT NULL CHECK (kind IN ('invalid', 'duplicate')),
  reason     text NOT NULL,
  raw        jsonb NOT NULL,
  PRIMARY KEY (import_id, row_no)
);

-- Down Migration
DROP TABLE IF EXISTS lead_import_errors;
DROP TABLE IF EXISTS lead_imports;
