def implement(value):
    handler = next(
        (handler for prefix, handler in ROUTES.items() if value["type"].startswith(prefix)),
        UNROUTED,
    )
    return f"{value['id']} -> {handler}"
