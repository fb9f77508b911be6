"""Protocol buffer package ``hybridkg`` (the .proto files and their generated code live in ``v1/``)."""
