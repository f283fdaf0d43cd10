"""rocetune: keep lossless RoCE v2 fabrics lossless."""

__version__ = "0.2.0"
