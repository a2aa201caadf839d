"""The table's web page: `companion.web.server` and the static page in `static/`."""
