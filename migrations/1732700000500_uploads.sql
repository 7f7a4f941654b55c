-- Up Migration
-- Uploaded files (web/app/modules/uploads): who owns each, what kind it is and where it lies.
-- The bytes are in UPLOAD_DIR under stored_name, a random name; original_name is only shown.
-- Who may read a file is the kind's policy in the module (kinds.ts), checked on every read.
CREATE TABLE uploads (
  id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  owner_id      bigint NOT NULL REFERENCES users (id),
  kind          text NOT NULL CHECK (kind ~ '^[a-z][a-z_]{0,39}$'),
  original_name text NOT NULL CHECK (length(original_name) BETWEEN 1 AND 255),
  stored_name   text NOT NULL UNIQUE CHECK (stored_name ~ '^[0-9a-f]{32}\.[a-z]{3,4}$'),
  mime          text NOT NULL,
  size          bigint NOT NULL CHECK (size > 0),
  sha256        text NOT NULL CHECK (sha256 ~ '^[0-9a-f]{64}$'),
  created_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX uploads_owner_idx ON uploads (owner_id, id DESC);

-- Down Migration
DROP TABLE IF EXISTS uploads;
