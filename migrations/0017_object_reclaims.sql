-- Bytes that no record points at any more: a delete or an expiry changes its rows first, in
-- one batch with a row here naming the key prefix that held the bytes, then deletes the bytes. If that
-- second step fails (a Worker stopped, storage refused), the scheduled sweep deletes the prefix once
-- `reclaim_at` has passed. A deleted upload's prefix is reclaimed again when its presigned PUT URL
-- expires, so nothing a late PUT wrote outlives the URL (src/storage/object-reclaims.ts).
CREATE TABLE object_reclaims (
  prefix TEXT PRIMARY KEY,
  reclaim_at TEXT NOT NULL
);
CREATE INDEX object_reclaims_due ON object_reclaims (reclaim_at);
