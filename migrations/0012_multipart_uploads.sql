-- Uploads in parts: the S3 multipart upload a pending upload slot is filled by, and its
-- part size; null for single-PUT uploads and once completed.
ALTER TABLE assets ADD COLUMN multipart_upload_id TEXT;
ALTER TABLE assets ADD COLUMN part_size INTEGER;
