-- Bytes per input a job's commands read, and fetched from its origin (inputs are read by
-- range while the job runs), as a JSON object by input name; null before a job ran.
ALTER TABLE jobs ADD COLUMN input_reads_json TEXT;
