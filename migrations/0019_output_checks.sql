-- What was proven about a job's outputs (src/jobs/checks/): every output's check results, kept on the
-- job (a job failed by its checks has no output rows to keep them on), and each stored file's SHA-256,
-- for the job's signed receipt (src/jobs/views/job-receipt.ts).
ALTER TABLE jobs ADD COLUMN checks_json TEXT;
ALTER TABLE job_outputs ADD COLUMN sha256 TEXT;
