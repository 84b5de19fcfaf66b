-- The client's own labels for a job (string → string, as JSON): returned with it, filterable.
ALTER TABLE jobs ADD COLUMN metadata_json TEXT;
