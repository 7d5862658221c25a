-- Files an ended episode's last diff changed, and whether the diff created them (issue 51):
-- relevantFiles never offers a file that runs only ever created (agents' scratch files:
-- reproduce.py, *.orig, *.bak), never one some run changed as an existing file.
CREATE TABLE "episode_files" (
    "tenant_id" UUID NOT NULL,
    "episode_id" UUID NOT NULL,
    "domain" TEXT NOT NULL DEFAULT '',
    "path" TEXT NOT NULL,
    "created" BOOLEAN NOT NULL,

    CONSTRAINT "episode_files_pkey" PRIMARY KEY ("episode_id","path")
);

CREATE INDEX "episode_files_tenant_id_path_idx" ON "episode_files"("tenant_id", "path");

ALTER TABLE "episode_files" ADD CONSTRAINT "episode_files_episode_id_fkey" FOREIGN KEY ("episode_id") REFERENCES "episodes"("id") ON DELETE CASCADE ON UPDATE CASCADE;
