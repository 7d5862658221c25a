#!/bin/sh
# Stand-in for Prisma's native schema engine, which cannot be downloaded on offline machines.
# `prisma generate` only needs the file to exist; anything that would really run the engine
# (migrate dev/deploy/diff, db push) must fail loudly instead of silently doing nothing.
echo "episodic: Prisma's schema engine is not installed here. Migrations are applied by the server at start-up (src/db/migrate.ts); run 'prisma migrate deploy' only where the real engine is available." >&2
exit 1
