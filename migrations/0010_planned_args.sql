-- Preset jobs: the arguments the runner planned from what the inputs are and ran, as a
-- JSON array; null for raw jobs and before a preset job ran.
ALTER TABLE jobs ADD COLUMN planned_args_json TEXT;
