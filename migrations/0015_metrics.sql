-- Operator metrics (src/metrics/): hourly rollups by account, read by GET /v1/admin/metrics and the
-- dashboard's charts. A count or sum has bucket -1; a distribution (queue wait, run time) one row per
-- histogram bucket (src/metrics/histogram.ts), so percentiles merge across hours and accounts.
CREATE TABLE metric_rollups (
  hour TEXT NOT NULL,
  account_id TEXT NOT NULL,
  metric TEXT NOT NULL,
  label TEXT NOT NULL,
  bucket INTEGER NOT NULL,
  count INTEGER NOT NULL,
  total REAL NOT NULL,
  PRIMARY KEY (hour, metric, label, bucket, account_id)
);
CREATE INDEX metric_rollups_account ON metric_rollups (account_id, hour);
-- Set in the batch that counts a finished job, so it is counted once; the sweep counts ends whose
-- recording was lost. Jobs that ended before metrics existed are not counted.
ALTER TABLE jobs ADD COLUMN metrics_applied INTEGER NOT NULL DEFAULT 0;
UPDATE jobs SET metrics_applied = 1 WHERE finished_at IS NOT NULL;
CREATE INDEX jobs_uncounted ON jobs (finished_at) WHERE metrics_applied = 0 AND finished_at IS NOT NULL;
-- "cold" when the job's container had to start, "warm" when it was already running (pool); null locally.
ALTER TABLE jobs ADD COLUMN container_start TEXT;
-- Operator accounts' keys may read every account's metrics (npm run keys -- create --operator).
ALTER TABLE accounts ADD COLUMN operator INTEGER NOT NULL DEFAULT 0;
