"""Protocol buffer definitions and generated gRPC code (imported only by server/)."""
