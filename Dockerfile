# The whole proxy in one image: `docker build -t platform . && docker run --network host -v platform-data:/data platform`
# Build stage compiles the single executable; the runtime stage carries only it (plus git for `exec`).
FROM oven/bun:1.4.5 AS build
WORKDIR /src
COPY package.json bun.lock bunfig.toml tsconfig.json ./
RUN bun install --frozen-lockfile --production --ignore-scripts
COPY src ./src
COPY actors ./actors
COPY policies ./policies
COPY scripts/build.ts ./scripts/build.ts
RUN bun scripts/build.ts --outfile /out/platform

FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends ca-certificates git && rm -rf /var/lib/apt/lists/* \
  && useradd --system --home /data --shell /usr/sbin/nologin platform && mkdir -p /data && chown platform /data
COPY --from=build /out/platform /usr/local/bin/platform
USER platform
ENV PLATFORM_DATA_DIR=/data
VOLUME /data
EXPOSE 8443
# The setup page listens on 127.0.0.1:9470 inside the container: use --network host to reach it from the host.
ENTRYPOINT ["platform"]
CMD ["serve"]
