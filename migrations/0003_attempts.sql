-- Runner attempts: a job is handed to a runner (dispatched) and stays queued until its binary gets a
-- slot; an attempt lost to an infrastructure fault puts it back in line, up to a fixed number of times.
ALTER TABLE jobs ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0;
ALTER TABLE jobs ADD COLUMN dispatched_at TEXT;
CREATE INDEX jobs_unfinished ON jobs (status, updated_at);
