# One image for the engine and the web app (see docker-compose.yml for how each runs).
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY engine/package.json engine/
COPY web/package.json web/
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build

FROM node:20-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /app /app
RUN useradd --system --uid 10001 broker && mkdir -p /app/.data/uploads && chown -R broker /app/.data
USER broker
EXPOSE 3000 4000
WORKDIR /app/web
CMD ["node", "server.mjs", "build/server/index.js"]
