-- 0014 is reserved for the search index's migration, made on another branch
-- at the same time as the journal (0015). This placeholder keeps the
-- numbering without gaps until that branch is merged, which replaces it.
SELECT 1;
