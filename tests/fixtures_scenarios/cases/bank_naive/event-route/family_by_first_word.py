def implement(value):
    return f"{value['id']} -> {ROUTES.get(value['type'].split('.')[0] + '.', UNROUTED)}"
