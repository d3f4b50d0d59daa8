# One image for every hookstream service; the command picks which:
#   docker run hookstream ingress | push --config <file> | receiver --port <n> --host 0.0.0.0
# Node 24 runs the TypeScript sources directly (type stripping), so there is no build stage.
FROM node:24-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
# The product only: the benchmarks (bench/, a workspace of the checkout) stay out, and npm ci
# installs nothing of theirs (test/image.test.ts lists what it installs).
COPY packages ./packages
COPY services ./services
COPY schemas ./schemas
# Subscriber definitions to start from (docker-compose.yml also mounts its own, to edit without a rebuild).
COPY examples ./examples
# Dev dependencies (vitest, turbo, biome, the npm-packaged Node) are not needed at run time.
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force
USER node
ENTRYPOINT ["node", "services/cli/bin/hookstream.js"]
