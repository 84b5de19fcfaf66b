-- Why a queued job has not started yet, when it waits on something other than capacity: the jobs whose
-- outputs it reads (job chains, src/jobs/request/chained-inputs.ts). Null otherwise.
ALTER TABLE jobs ADD COLUMN queued_reason TEXT;
