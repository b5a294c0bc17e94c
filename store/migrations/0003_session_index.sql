-- 0003: the index of session files. Sessions are pi's JSONL files; this
-- table only remembers which session ids each project has, so the Projects
-- list can count them without reading folders. It is rebuilt from the files
-- (Manager.Reconcile), so deleting its rows loses nothing.
CREATE TABLE session_files (
    project_id TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    id         TEXT NOT NULL,
    PRIMARY KEY (project_id, id)
) WITHOUT ROWID;

-- Sessions an older pi-tui kept in the store and that have content: the
-- ones moved into files (empty ones have no file, as in pi).
INSERT INTO session_files (project_id, id)
    SELECT s.project_id, s.id FROM sessions s
    WHERE s.title != '' OR EXISTS (SELECT 1 FROM entries e WHERE e.session_id = s.id);
