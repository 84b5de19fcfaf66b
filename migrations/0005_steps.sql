-- Multi-step jobs: the index (in the job's `steps`) of the step that failed, null otherwise.
ALTER TABLE jobs ADD COLUMN failed_step INTEGER;
