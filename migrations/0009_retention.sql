-- Retention: when an asset's bytes are due to be deleted (uploads and outputs have their own
-- periods), and when they were (the record stays, as `expired`).
ALTER TABLE assets ADD COLUMN expires_at TEXT;
ALTER TABLE assets ADD COLUMN expired_at TEXT;
CREATE INDEX assets_due ON assets (expires_at) WHERE expired_at IS NULL;
