-- 0004: project groups. A group is a name projects share; it exists while
-- a project carries it ('' = no group).
ALTER TABLE projects ADD COLUMN group_name TEXT NOT NULL DEFAULT '';
