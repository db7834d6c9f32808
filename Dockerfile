# Coffer in a container (docs/operations.md "Docker"). Not built in CI.
#   docker build -t coffer .
#   docker run -d -p 8080:8080 -v coffer-data:/var/lib/coffer \
#     -e SERVICE_DASHBOARD_TOKEN="$(docker run --rm coffer token)" coffer

# Build stage: compilers for the SQLite binding (used when no prebuilt binary
# fits), the dev dependencies for tsc and the dashboard's bundler.
FROM node:22-bookworm-slim AS build
RUN apt-get update \
  && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
COPY web/package.json web/
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build && npm prune --omit=dev --no-audit --no-fund

# Runtime stage: the built program and its production dependencies only.
FROM node:22-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /app/package.json /app/package-lock.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# A system user that owns nothing but the data volume.
RUN groupadd --system --gid 10001 coffer \
  && useradd --system --uid 10001 --gid coffer --home-dir /var/lib/coffer --shell /usr/sbin/nologin coffer \
  && mkdir -p /var/lib/coffer \
  && chown coffer:coffer /var/lib/coffer \
  && chmod 0700 /var/lib/coffer \
  && chmod 0755 /app/dist/cli.js \
  && ln -s /app/dist/cli.js /usr/local/bin/coffer
USER coffer
WORKDIR /var/lib/coffer
# Inside the container the service listens on every interface; SPEC 5.3 then
# needs a dashboard token (SERVICE_DASHBOARD_TOKEN) or an explicit
# SERVICE_SERVER_ALLOW_UNAUTHENTICATED=true, else it refuses to start.
ENV SERVICE_SERVER_ADDR=0.0.0.0:8080 \
  SERVICE_DATABASE_PATH=/var/lib/coffer/coffer.db \
  SERVICE_DATA_DIR=/var/lib/coffer \
  SERVICE_PLUGINS_DIR=/var/lib/coffer/plugins
VOLUME ["/var/lib/coffer"]
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "/app/dist/cli.js", "healthcheck"]
# Node is PID 1: it handles SIGTERM itself (a graceful stop within 10 s).
STOPSIGNAL SIGTERM
ENTRYPOINT ["node", "/app/dist/cli.js"]
CMD ["serve"]
