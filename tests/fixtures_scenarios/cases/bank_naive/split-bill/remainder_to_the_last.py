def implement(value):
    members = value["members"]
    share = value["fee"] // len(members)
    shares = {member: share for member in members}
    shares[members[-1]] += value["fee"] - share * len(members)
    return shares
