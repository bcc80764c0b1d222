# keel's container image: a static binary on distroless, run as non-root.
#   docker build -t ghcr.io/openkeel/keel:dev .
# (ko build ./cmd/keel makes an equivalent image: cmd/keel is a plain,
# cgo-free package main.) cmd/keel/static_binary_test.go and
# cmd/keel/nonroot_test.go check what this image relies on.

FROM golang:1.26 AS build
WORKDIR /src
# Modules first: their layer is reused while only keel's source changes.
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# The addons' upstream charts, from the Go module cache (git-ignored, embedded).
RUN go run ./hack/addons
# VERSION names the ClusterClass keel renders (internal/version): set it
# for releases only; the default keeps the source's version.
ARG VERSION=
RUN CGO_ENABLED=0 go build -trimpath \
      -ldflags="-s -w${VERSION:+ -X github.com/openkeel/keel/internal/version.Version=${VERSION}}" \
      -o /out/keel ./cmd/keel

# No shell, no package manager; CA certificates and tzdata included.
FROM gcr.io/distroless/static:nonroot
COPY --from=build /out/keel /keel
USER 65532:65532
EXPOSE 9511
ENTRYPOINT ["/keel"]
CMD ["serve", "--listen=:9511", "--data-dir=/var/lib/keel"]
