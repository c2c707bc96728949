def implement(value):
    return "".join(word[0] for word in value.split())[:2].upper()
