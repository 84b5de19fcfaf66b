-- Core schema: accounts, API keys, assets (uploads and stored outputs), jobs, job outputs.
-- Timestamps are ISO 8601 UTC strings with milliseconds, so text order is time order.

CREATE TABLE accounts (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  credit_balance INTEGER,
  created_at TEXT NOT NULL
);

CREATE TABLE api_keys (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts(id),
  key_hash TEXT NOT NULL UNIQUE,
  key_prefix TEXT NOT NULL,
  created_at TEXT NOT NULL,
  revoked_at TEXT
);

CREATE TABLE assets (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts(id),
  origin TEXT NOT NULL CHECK (origin IN ('upload', 'output')),
  job_id TEXT,
  file_name TEXT NOT NULL,
  content_type TEXT NOT NULL,
  size INTEGER,
  status TEXT NOT NULL CHECK (status IN ('pending', 'ready')),
  object_key TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX assets_account ON assets (account_id, created_at);

CREATE TABLE jobs (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts(id),
  binary TEXT NOT NULL CHECK (binary IN ('ffmpeg', 'ffprobe')),
  mode TEXT NOT NULL DEFAULT 'raw',
  status TEXT NOT NULL CHECK (status IN ('queued', 'running', 'completed', 'failed', 'canceled', 'rejected')),
  request_json TEXT NOT NULL,
  webhook_url TEXT,
  progress_json TEXT,
  exit_code INTEGER,
  runtime_seconds INTEGER NOT NULL DEFAULT 0,
  credits_charged INTEGER NOT NULL DEFAULT 0,
  charge_applied INTEGER NOT NULL DEFAULT 0,
  error_code TEXT,
  error_message TEXT,
  stdout TEXT,
  stderr_tail TEXT,
  created_at TEXT NOT NULL,
  started_at TEXT,
  finished_at TEXT,
  updated_at TEXT NOT NULL
);
CREATE INDEX jobs_account_order ON jobs (account_id, created_at DESC, id DESC);
CREATE INDEX jobs_account_status_order ON jobs (account_id, status, created_at DESC, id DESC);

CREATE TABLE job_outputs (
  id TEXT PRIMARY KEY,
  job_id TEXT NOT NULL REFERENCES jobs(id),
  asset_id TEXT NOT NULL REFERENCES assets(id),
  label TEXT NOT NULL,
  content_type TEXT NOT NULL,
  kind TEXT NOT NULL DEFAULT 'file',
  metadata_json TEXT,
  created_at TEXT NOT NULL,
  UNIQUE (job_id, label)
);
