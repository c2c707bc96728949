"""One module per DVC stage: what ``stages/<name>.py`` calls. Each reads its inputs from
``data/``, calls the library, and writes ``data/<stage>/``."""
