-- Up Migration
-- A lead written by a CSV import remembers the import and the file's row (docs/specs.md#crm-lead-lists): a later row
-- of the same file that repeats its email or phone is then reported as a duplicate within the file (naming the
-- row), not as 'an existing lead'. Nullable columns without a default: no table rewrite; no index (read only
-- on the rows the duplicate check already found by email_norm / phone_e164).
ALTER TABLE leads ADD COLUMN import_id bigint, ADD COLUMN import_row int;

-- Down Migration
ALTER TABLE leads DROP COLUMN import_row, DROP COLUMN import_id;
