# gatehouse: build in one stage, run compiled code with production dependencies only, as a non-root user.

FROM node:20-bookworm AS build
WORKDIR /app
COPY package.json package-lock.json ./
# The full image has python3, make and g++, so the optional native addons (zlib-sync, zstd-napi) compile here;
# where one cannot build, npm ci goes on without it (zlib-stream then inflates with node:zlib, zstd-stream with fzstd).
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY plugins ./plugins
RUN npm run build && npm prune --omit=dev

FROM node:20-bookworm-slim
# MALLOC_MMAP_THRESHOLD_ as in src/runtime/node-flags.ts (LAUNCH_ENV; a test keeps them in step): glibc's
# mmap threshold pinned at 128 KiB, so freed cache columns and compiler zones go back to the system.
ENV NODE_ENV=production \
    GATEHOUSE_PLUGIN_DIRS=dist/plugins \
    MALLOC_MMAP_THRESHOLD_=131072
WORKDIR /app
COPY --from=build --chown=node:node /app/node_modules ./node_modules
COPY --from=build --chown=node:node /app/dist ./dist
COPY --chown=node:node package.json ./
COPY --chown=node:node config/default.json ./config/default.json
USER node
# Health and metrics (GATEHOUSE_HTTP_PORT). Bound to loopback unless GATEHOUSE_HTTP_HOST says otherwise.
EXPOSE 9464
# The signed interactions / webhook events endpoint (GATEHOUSE_TRANSPORT both or http; GATEHOUSE_ENDPOINT_PORT).
# Loopback unless GATEHOUSE_ENDPOINT_HOST says otherwise: put a reverse proxy in front (docs/http-interactions.md "Exposing it").
EXPOSE 8080
HEALTHCHECK --interval=15s --timeout=3s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.GATEHOUSE_HTTP_PORT||9464)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# Node flags as in src/runtime/node-flags.ts (a test keeps them in step): a 2 MiB young generation.
CMD ["node", "--max-semi-space-size=2", "dist/src/cli.js", "start"]
