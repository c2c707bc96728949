"""Model providers: one ``Provider.complete`` call per request (``base``), the HTTP adapters
(``openrouter``, ``azure_openai``, ``openai_compatible`` over ``chat`` and ``http``), the
simulated and replay providers, and ``factory``, which builds the one a model profile names."""
