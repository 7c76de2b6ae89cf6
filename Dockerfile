# syntax=docker/dockerfile:1
# A static, non-root image of the whole service. Build: docker build -t concierge .
# Run one replica on SQLite:   docker run -p 8080:8080 -v concierge-data:/data concierge
# Run replicas on PostgreSQL:  see docs/deploy.md (DATABASE_URL, REDIS_URL, CONCIERGE_SECRET_KEY).

FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# modernc.org/sqlite is pure Go: no cgo, one static binary.
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/concierge ./cmd/concierge \
 && mkdir -p /out/data

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/concierge /concierge
COPY --from=build --chown=65532:65532 /out/data /data
USER 65532:65532
ENV CONCIERGE_ADDR=0.0.0.0:8080 \
    CONCIERGE_DATA_DIR=/data \
    CONCIERGE_LOG_FORMAT=json
VOLUME ["/data"]
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=4s --start-period=10s --retries=3 CMD ["/concierge", "healthcheck"]
ENTRYPOINT ["/concierge"]
CMD ["serve"]
