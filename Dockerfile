# Pigeon in a container: compiled JavaScript on Node.js 24, run as the unprivileged `node` user.
# The container expects DATABASE_URL (the embedded PostgreSQL is for a laptop, not for containers);
# compose.yaml runs it beside PostgreSQL 17 as an `api` and a `worker` service.

# 1. Build: every dependency, then the server (tsc → dist/) and the dashboard (Vite → web/dist/).
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY web/package.json web/
# No install scripts here: the base image brings Node.js 24 (the `node` package's download is not
# needed) and a container uses DATABASE_URL, not the embedded PostgreSQL's binaries.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY . .
RUN npm run build

# 2. Production dependencies of the server only: the dashboard is static files by now (so the web
#    workspace is dropped), and optional dependencies are the embedded PostgreSQL's and build tools'
#    platform binaries, which a container does not run.
FROM node:24-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm pkg delete workspaces \
 && npm ci --omit=dev --omit=optional --ignore-scripts --no-audit --no-fund \
 && npm cache clean --force

# 3. Runtime.
FROM node:24-bookworm-slim
ENV NODE_ENV=production PORT=3000 HOST=0.0.0.0 DATA_DIR=/data
WORKDIR /app
COPY --from=deps /app/node_modules node_modules
COPY --from=build /app/package.json package.json
COPY --from=build /app/dist dist
COPY --from=build /app/web/dist web/dist
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME /data
EXPOSE 3000
# Liveness: the process answers and reaches its database (every role serves /health on PORT).
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# A 16 MB young generation and a 1 GB old-generation limit: V8 would otherwise size both from the host's
# memory and collect lazily (README: memory).
CMD ["node", "--max-semi-space-size=4", "--max-old-space-size=1024", "dist/main.js"]
