-- Imported runs whose format records no times (SWE-agent's .traj): their times stay unknown
-- instead of becoming the import instant. started_at/ended_at then hold when the run was
-- imported (ordering only); wall time, the reward's speed terms and retrieval recency ignore them.

-- AlterTable
ALTER TABLE "episodes" ADD COLUMN "times_known" BOOLEAN NOT NULL DEFAULT true;
