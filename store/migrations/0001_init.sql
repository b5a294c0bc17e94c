-- 0001: the key-value table shared with the design contract, projects and sessions.
CREATE TABLE kv (
    namespace  TEXT    NOT NULL,
    key        TEXT    NOT NULL,
    value      TEXT    NOT NULL,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (namespace, key)
);

CREATE TABLE projects (
    id             TEXT    PRIMARY KEY,
    name           TEXT    NOT NULL,
    root           TEXT    NOT NULL UNIQUE,
    pinned         INTEGER NOT NULL DEFAULT 0,
    archived       INTEGER NOT NULL DEFAULT 0,
    trusted        INTEGER NOT NULL DEFAULT 0,
    created_at     INTEGER NOT NULL,
    last_opened_at INTEGER
);
CREATE INDEX projects_name ON projects (name);

CREATE TABLE sessions (
    id         TEXT    PRIMARY KEY,
    project_id TEXT    NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    title      TEXT    NOT NULL DEFAULT '',
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
);
CREATE INDEX sessions_project ON sessions (project_id, updated_at);
