# One image for the gateway and all five services; the Kubernetes manifests pick the
# process with `command` (node dist/<component>.js).

# Build stage: every dependency, then the TypeScript compiled into one bundle per component.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY proto/package.json proto/
COPY services/platform/package.json services/platform/
COPY services/crm/package.json services/crm/
COPY services/jobs/package.json services/jobs/
COPY services/fieldops/package.json services/fieldops/
COPY services/comms/package.json services/comms/
COPY services/analytics/package.json services/analytics/
COPY gateway/package.json gateway/
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.base.json tsconfig.json ./
COPY proto/ proto/
COPY services/ services/
COPY gateway/ gateway/
# The embedded database template is for `npm start`, not for the cluster.
RUN node gateway/scripts/build.mjs --no-template

FROM node:20-bookworm-slim

WORKDIR /app

# Numeric non-root user, matching runAsUser/fsGroup 10001 in deploy/.
RUN groupadd --system --gid 10001 voiceops \
 && useradd --system --uid 10001 --gid voiceops --no-create-home --shell /usr/sbin/nologin voiceops

# Manifests first so the dependency layer is cached until they change. npm ci needs every
# workspace's package.json to reproduce the lockfile.
COPY package.json package-lock.json ./
COPY proto/package.json proto/
COPY services/platform/package.json services/platform/
COPY services/crm/package.json services/crm/
COPY services/jobs/package.json services/jobs/
COPY services/fieldops/package.json services/fieldops/
COPY services/comms/package.json services/comms/
COPY services/analytics/package.json services/analytics/
COPY gateway/package.json gateway/

# Runtime dependencies only: no compiler, code generator or test tools.
RUN npm ci --ignore-scripts --omit=dev --no-audit --no-fund \
 && npm cache clean --force

# The bundles, and the SQL migrations they read next to each component's sources.
COPY --from=build /app/dist/ dist/
COPY services/ services/
COPY gateway/ gateway/

ENV NODE_ENV=production
# Files stay root-owned and read-only to the process.
USER 10001:10001

EXPOSE 8080 8081
CMD ["node", "dist/gateway.js"]
