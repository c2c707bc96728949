def implement(value):
    hog = []
    while True:
        hog.append(bytearray(8 * 1024 * 1024))
