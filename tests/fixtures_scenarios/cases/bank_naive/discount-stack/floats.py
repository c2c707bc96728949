def implement(value):
    total = float(value["subtotal"])
    for coupon in value["coupons"]:
        total = total * (1 - float(coupon[:-1]) / 100) if coupon.endswith("%") else total - float(coupon)
    return f"{max(total, 0):.2f}"
