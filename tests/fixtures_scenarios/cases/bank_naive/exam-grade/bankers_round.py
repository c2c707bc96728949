from bisect import bisect_right


def implement(value):
    percent = round((value["exam"] + value["coursework"]) * 100 / 150)
    return GRADES[bisect_right(BOUNDARIES, percent)]
