def implement(value):
    role = ROLES.get(value["role"])
    return role is not None and value["permission"] in role[1]
