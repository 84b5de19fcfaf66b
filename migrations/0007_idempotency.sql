-- Idempotency-Key on POST /v1/jobs and POST /v1/files: the first request's response, replayed to
-- retries with the same key and body for 24 h. `status` is null while the first request runs.
CREATE TABLE idempotency_keys (
  account_id TEXT NOT NULL,
  operation TEXT NOT NULL,
  idem_key TEXT NOT NULL,
  request_hash TEXT NOT NULL,
  status INTEGER,
  response_json TEXT,
  location TEXT,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  PRIMARY KEY (account_id, operation, idem_key)
);
CREATE INDEX idempotency_keys_expiry ON idempotency_keys (expires_at);
