def implement(value):
    current, allowed = value["role"], False
    while current in ROLES and not allowed:
        parent, grants = ROLES[current]
        allowed = value["permission"] in grants
        current = parent
    return allowed
