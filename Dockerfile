# Episodic service image. The Prisma client is generated during `npm ci` (no network but the registry);
# the monitor page is built with the dev dependencies, which are then pruned.
FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production HOST=0.0.0.0 PORT=4000 EPISODIC_DATA_DIR=/data
COPY package.json package-lock.json prisma.config.ts ./
COPY scripts ./scripts
COPY prisma ./prisma
RUN npm ci --no-audit --no-fund --include=dev
COPY . .
RUN npm run build:web && npm run build -- --server && npm prune --omit=dev --no-audit --no-fund
RUN mkdir -p /data && chown node:node /data
USER node
EXPOSE 4000
HEALTHCHECK --interval=10s --timeout=3s --retries=6 CMD node -e "fetch('http://127.0.0.1:4000/readyz').then(r=>process.exit(r.ok?0:1)).catch(()=>process.exit(1))"
CMD ["node", "--enable-source-maps", "dist/server/main.js"]
