from decimal import ROUND_HALF_UP, Decimal


def implement(value):
    total = Decimal(value["subtotal"])
    for coupon in sorted(value["coupons"], key=lambda c: not c.endswith("%")):
        if coupon.endswith("%"):
            total -= total * Decimal(coupon[:-1]) / 100
        else:
            total -= Decimal(coupon)
    return str(max(total, Decimal(0)).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP))
