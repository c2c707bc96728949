-- Views over every table of every run. {data} is the data folder.
CREATE OR REPLACE VIEW subjects AS
  SELECT * FROM read_parquet('{data}/subjects/*/subjects.parquet', union_by_name = true);
CREATE OR REPLACE VIEW prompts AS
  SELECT * FROM read_parquet('{data}/render/*/prompts.parquet', union_by_name = true);
CREATE OR REPLACE VIEW cells AS
  SELECT * EXCLUDE (text) FROM read_parquet('{data}/execute/*/cells.parquet', union_by_name = true);
CREATE OR REPLACE VIEW responses AS
  SELECT run, cell_id, step, response_digest, text
  FROM read_parquet('{data}/execute/*/cells.parquet', union_by_name = true)
  WHERE status = 'completed';
CREATE OR REPLACE VIEW candidates AS
  SELECT * FROM read_parquet('{data}/extract/*/candidates.parquet', union_by_name = true);
