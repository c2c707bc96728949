def implement(value):
    return letter_grade((value["exam"] + value["coursework"] * 2) / 2, 100)
