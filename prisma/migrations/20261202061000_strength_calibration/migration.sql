-- The strength of a served run is a calibrated probability (issue 51): its calibration is fitted
-- with the tenant's ranker (or alone, when the tenant keeps the fixed formula) and stored with it.
-- Empty: the fixed formula's default calibration (src/retrieval/calibration.ts).
ALTER TABLE "ranking_models" ADD COLUMN "calibration" DOUBLE PRECISION[] DEFAULT '{}';
