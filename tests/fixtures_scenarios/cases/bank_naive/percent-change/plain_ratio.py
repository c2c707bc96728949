def implement(value):
    change = (value["this_year"] - value["last_year"]) / value["last_year"] * 100
    return f"{change:+.1f}%"
