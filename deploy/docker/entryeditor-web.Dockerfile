# The entry editor's web front end: the Vue app built by Node, served by nginx.
#
#   docker build -f deploy/docker/entryeditor-web.Dockerfile -t servelab/entryeditor-web .
#
# Build context: the repository root (as every servelab image). The nginx configuration is
# not in the image: compose mounts deploy/nginx/entryeditor-web.conf.template as the nginx
# image's template, as for every nginx server of the project, so the local runner serves the
# same file.
#
#   NODE_IMAGE    the build stage: Node 20.19 or later (Vite 7)
#   NGINX_IMAGE   the runtime: the official nginx image or servelab's stand-in for it
ARG NODE_IMAGE=node:20.19.6-bookworm-slim
ARG NGINX_IMAGE=nginx:1.27

# --- build: npm ci from the lockfile, then vite build (and the .gz files) into dist/ ---
FROM ${NODE_IMAGE} AS build
WORKDIR /app
# The lockfile first, so the dependency layer stays cached while only sources change.
COPY services/entryeditor-web/package.json services/entryeditor-web/package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY services/entryeditor-web/index.html services/entryeditor-web/vite.config.ts \
     services/entryeditor-web/tsconfig.json ./
COPY services/entryeditor-web/scripts scripts
COPY services/entryeditor-web/src src
RUN npm run build

# --- runtime: nginx and the built files only ---
FROM ${NGINX_IMAGE}
COPY --from=build /app/dist /usr/share/nginx/html
