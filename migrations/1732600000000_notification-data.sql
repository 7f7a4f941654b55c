-- Up Migration
-- A notification's values (kind and figures), so the web words and formats it in the reader's
-- language at render time (README "Number formats"). title and description stay as the
-- English text for anything that reads the row without the web's formatter.
ALTER TABLE notifications ADD COLUMN data jsonb;

-- Down Migration
ALTER TABLE notifications DROP COLUMN IF EXISTS data;
