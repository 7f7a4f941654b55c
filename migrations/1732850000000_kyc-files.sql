-- Up Migration
-- KYC documents (docs/specs.md#kyc) point at their files in `uploads` (the upload service, kinds
-- kyc_front / kyc_back / kyc_address) instead of free-text paths, which nothing ever wrote.
-- A customer has at most one document under review or approved: a new one only after a decline
-- (the declined rows stay for the audit). The module (web/app/modules/kyc) enforces it under a
-- lock and answers with a message; the unique index is the backstop.
ALTER TABLE kyc_documents
  DROP COLUMN front_path,
  DROP COLUMN back_path,
  DROP COLUMN address_path,
  ADD COLUMN front_upload_id bigint REFERENCES uploads (id),
  ADD COLUMN back_upload_id bigint REFERENCES uploads (id),
  ADD COLUMN address_upload_id bigint REFERENCES uploads (id),
  ADD CONSTRAINT kyc_documents_reason_length CHECK (decline_reason IS NULL OR length(decline_reason) <= 500);

CREATE UNIQUE INDEX kyc_documents_open_key ON kyc_documents (user_id) WHERE status IN ('pending', 'approved');
-- the files' foreign keys (an upload is never deleted while a document points at it)
CREATE INDEX kyc_documents_front_idx ON kyc_documents (front_upload_id) WHERE front_upload_id IS NOT NULL;
CREATE INDEX kyc_documents_back_idx ON kyc_documents (back_upload_id) WHERE back_upload_id IS NOT NULL;
CREATE INDEX kyc_documents_address_idx ON kyc_documents (address_upload_id) WHERE address_upload_id IS NOT NULL;

-- Down Migration
DROP INDEX IF EXISTS kyc_documents_address_idx;
DROP INDEX IF EXISTS kyc_documents_back_idx;
DROP INDEX IF EXISTS kyc_documents_front_idx;
DROP INDEX IF EXISTS kyc_documents_open_key;
ALTER TABLE kyc_documents
  DROP CONSTRAINT IF EXISTS kyc_documents_reason_length,
  DROP COLUMN IF EXISTS address_upload_id,
  DROP COLUMN IF EXISTS back_upload_id,
  DROP COLUMN IF EXISTS front_upload_id,
  ADD COLUMN front_path text,
  ADD COLUMN back_path text,
  ADD COLUMN address_path text;
