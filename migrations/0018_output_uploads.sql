-- A file output stored in parts while its command writes it (src/storage/output-parts.ts): the one
-- R2 multipart upload a job's attempt may start for an output. A second start is refused, and every
-- part, completion and abort must name this upload, so one write token can hold at most one output's
-- worth of parts in storage. Rows go with their job (src/jobs/store/job-store.ts, finishedJobDeletes).
CREATE TABLE output_uploads (
  job_id TEXT NOT NULL REFERENCES jobs(id),
  output TEXT NOT NULL,
  attempt INTEGER NOT NULL,
  upload_id TEXT NOT NULL,
  created_at TEXT NOT NULL,
  PRIMARY KEY (job_id, output, attempt)
);
