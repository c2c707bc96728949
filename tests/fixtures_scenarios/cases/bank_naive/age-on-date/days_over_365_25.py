from datetime import date


def implement(value):
    born, day = date.fromisoformat(value["birth_date"]), date.fromisoformat(value["expires"])
    return int((day - born).days / 365.25)
