from datetime import date


def implement(value):
    born, day = date.fromisoformat(value["birth_date"]), date.fromisoformat(value["expires"])
    return day.year - born.year - ((day.month, day.day) < (born.month, born.day))
