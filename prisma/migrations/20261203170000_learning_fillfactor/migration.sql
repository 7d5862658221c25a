-- Import speed (issue 55): an import batch adds to thousands of rows of the term index's document
-- frequencies and of the patterns' strata (INSERT ... ON CONFLICT DO UPDATE of counts). None of the
-- updated columns is indexed, so the update can stay on its page without a new index entry (a HOT
-- update), but only when the page has room: with the default fill factor (100) every page is full
-- and each update wrote a new primary-key entry too. The space kept free per page lets most of them
-- stay HOT (the frequencies' upsert of 65,000 rows: 680-860 ms of CPU against 1,130-1,170 ms).
ALTER TABLE "episode_term_df" SET (fillfactor = 70);
ALTER TABLE "pattern_strata" SET (fillfactor = 70);
ALTER TABLE "pattern_baselines" SET (fillfactor = 70);
