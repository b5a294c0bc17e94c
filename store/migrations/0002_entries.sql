-- 0002: session trees. A session is a tree of entries; leaf_id names the
-- entry the conversation continues from (NULL: before the first entry).
ALTER TABLE sessions ADD COLUMN leaf_id TEXT;

CREATE TABLE entries (
    id         TEXT    NOT NULL,
    session_id TEXT    NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    parent_id  TEXT,
    seq        INTEGER NOT NULL,
    type       TEXT    NOT NULL,
    payload    TEXT    NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (session_id, id)
);
CREATE UNIQUE INDEX entries_session_seq ON entries (session_id, seq);
