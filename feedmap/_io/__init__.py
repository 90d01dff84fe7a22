"""Bytes in and out: where input comes from (paths, URLs, stdin, gzip), the HTTP client with its cache and
deadline, scratch files and spools, output sinks and the temporary files earlier runs left."""
