def implement(value):
    members = value["members"]
    return {member: round(value["fee"] / len(members)) for member in members}
