// Prisma CLI configuration. The URL is only used by `prisma migrate deploy` where the real schema
// engine exists; `generate` needs none, so a placeholder keeps it working offline.
import { defineConfig } from 'prisma/config';

export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
  datasource: { url: process.env.DATABASE_URL ?? 'postgresql://localhost:5432/episodic' },
});
