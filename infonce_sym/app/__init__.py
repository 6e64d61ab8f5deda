"""The application layer: the verify plan and runner, the command line, the report, the benchmark."""
