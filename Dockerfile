# One image for the gateway and every service; the Kubernetes manifests pick the
# process with `command` (node dist/<component>.js).

# The manifests npm ci needs (the root's, the lock and every workspace's package.json) and
# nothing else, whatever services there are: the dependency layers below stay cached until one
# of them changes.
FROM node:20-bookworm-slim AS manifests
WORKDIR /app
COPY package.json package-lock.json ./
COPY proto/ proto/
COPY services/ services/
COPY gateway/ gateway/
COPY web/ web/
RUN find proto services gateway web -type f ! -name package.json -delete && find proto services gateway web -type d -empty -delete

# Build stage: every dependency, then the TypeScript compiled into one bundle per component.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY --from=manifests /app/ ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.base.json tsconfig.json ./
COPY proto/ proto/
COPY services/ services/
COPY gateway/ gateway/
COPY web/ web/
# The embedded database template is for `npm start`, not for the cluster.
RUN node gateway/scripts/build.mjs --no-template

FROM node:20-bookworm-slim

WORKDIR /app

# Numeric non-root user, matching runAsUser/fsGroup 10001 in deploy/.
RUN groupadd --system --gid 10001 voiceops \
 && useradd --system --uid 10001 --gid voiceops --no-create-home --shell /usr/sbin/nologin voiceops

# Manifests first so the dependency layer is cached until they change. npm ci needs every
# workspace's package.json to reproduce the lockfile.
COPY --from=manifests /app/ ./

# Runtime dependencies only: no compiler, code generator or test tools.
RUN npm ci --ignore-scripts --omit=dev --no-audit --no-fund \
 && npm cache clean --force

# The bundles, and the SQL migrations they read next to each component's sources.
COPY --from=build /app/dist/ dist/
COPY services/ services/
COPY gateway/ gateway/

ENV NODE_ENV=production
# A 32 MB young generation (as `npm run start:gateway` and `start:service` have): under load
# fewer scavenges, fewer requests' objects promoted to the old generation, fewer full
# collections (the distributed read, alternating runs: 7% more req/s, p99 24 ms against 30).
ENV NODE_OPTIONS=--max-semi-space-size=32
# Files stay root-owned and read-only to the process.
USER 10001:10001

EXPOSE 8080 8081
CMD ["node", "dist/gateway.js"]
