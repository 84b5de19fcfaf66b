-- Outputs a job sent to the user's own storage (an output's `destination`), as JSON: where each went
-- (its URL without the query, which holds the signature), its size, SHA-256, the storage's ETag and the
-- probe summary. They have no asset here: the service never held them.
ALTER TABLE jobs ADD COLUMN delivered_json TEXT;
