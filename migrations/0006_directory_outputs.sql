-- Directory outputs (HLS, image sequences): the stored files as JSON [{ "path", "size" }], and
-- which of them the output's URL opens. Null for file outputs.
ALTER TABLE job_outputs ADD COLUMN files_json TEXT;
ALTER TABLE job_outputs ADD COLUMN main_file TEXT;
