"""Entry points: CLI now; gRPC and HTTP endpoints, config and routing."""
