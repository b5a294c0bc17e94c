-- 0005: projects of several folders (ADR 0085). A project's first folder,
-- its primary root, stays projects.root; the rows here are the folders
-- after it, in position order. A database with no rows here is what it
-- was: every project a folder of one.
--
-- A canonical path is a folder of at most one project: UNIQUE here, and
-- the writer's transactions refuse a path that is any project's root.
CREATE TABLE project_folders (
    project_id TEXT    NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    position   INTEGER NOT NULL,
    path       TEXT    NOT NULL UNIQUE,
    name       TEXT    NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (project_id, position)
);

-- The sessions that worked in a folder, noted by the host when a tool
-- first reaches into it, so that removing the folder can name them.
CREATE TABLE folder_sessions (
    project_id TEXT    NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    path       TEXT    NOT NULL,
    session_id TEXT    NOT NULL,
    noted_at   INTEGER NOT NULL,
    PRIMARY KEY (project_id, path, session_id)
) WITHOUT ROWID;
