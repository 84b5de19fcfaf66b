-- Split encodes (src/jobs/split/): a job's runner tasks (its segments, its audio, the join;
-- or one "whole" task when the input cannot be cut), each run on a runner of its own. Every change is
-- a guarded UPDATE (src/jobs/split/task-store.ts), so a late tick or a duplicate report changes nothing.
CREATE TABLE job_tasks (
  job_id TEXT NOT NULL REFERENCES jobs(id),
  name TEXT NOT NULL,
  -- JSON: the tasks that must complete before this one starts.
  needs_json TEXT NOT NULL,
  -- JSON: what the task's command is built from (src/jobs/split/split-tasks.ts).
  params_json TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('pending', 'running', 'completed', 'failed')),
  -- The current attempt's runner job id (a fresh one per attempt); the pool's reclaim reads it.
  runner_id TEXT,
  attempts INTEGER NOT NULL DEFAULT 0,
  -- The binary's run time over the attempts that reported one (billed; a lost attempt is not).
  runtime_ms INTEGER NOT NULL DEFAULT 0,
  -- JSON: the completed attempt's outputs (size, metadata) and phase timings.
  result_json TEXT,
  error_message TEXT,
  started_at TEXT,
  finished_at TEXT,
  PRIMARY KEY (job_id, name)
);
CREATE INDEX job_tasks_runner ON job_tasks (runner_id) WHERE runner_id IS NOT NULL;
