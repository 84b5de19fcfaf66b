-- Job templates (src/templates/): a job body kept by name with its declared variables, one row per
-- version; the newest is the highest. A job made from one copies what it ran into its own row.
CREATE TABLE job_templates (
  account_id TEXT NOT NULL,
  name TEXT NOT NULL,
  version INTEGER NOT NULL,
  description TEXT,
  variables_json TEXT NOT NULL,
  job_json TEXT NOT NULL,
  created_at TEXT NOT NULL,
  PRIMARY KEY (account_id, name, version)
);
