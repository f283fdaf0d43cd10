"""Rule logic, one module per family. Rules see only rocetune.model (never platforms)."""
