-- Where a finished job's time went: queued, fetch, run, store, finish (ms), as JSON.
ALTER TABLE jobs ADD COLUMN timings_json TEXT;
