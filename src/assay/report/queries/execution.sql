-- What happened to every provider call, and the money: reserved against reported.
SELECT run, status, count(*) AS calls,
       round(sum(reservation_usd), 6) AS reserved_usd,
       round(sum(coalesce(cost_usd, 0)), 6) AS reported_usd
FROM cells
GROUP BY ALL
ORDER BY run, status;
