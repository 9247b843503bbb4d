-- The daily report (date, currency, orders, units, revenue; UTC) in one
-- DuckDB query over the NDJSON.zst, for the README's Performance table.
--
-- SQL has no natural place for a fold's state, so this follows the happy
-- path: a cart's order is its first checkout; its lines are what was added
-- before it, less what was removed, with quantity changes applied and the
-- last price winning. It leaves out the anomaly rules that need state
-- across carts or along them (duplicate orders, a checkout of an empty cart
-- that a later one follows, currency mismatches, overflow), so its figures
-- differ from the fold's by those anomalies; `compare` prints by how much.
WITH e AS (
    SELECT ordinality AS seq, *
    FROM read_json(getvariable('events'), format = 'newline_delimited', columns = {
        type: 'VARCHAR', "at": 'VARCHAR', cart: 'VARCHAR', product: 'VARCHAR', qty: 'BIGINT',
        price: 'BIGINT', currency: 'VARCHAR', "order": 'VARCHAR'}) WITH ORDINALITY
),
checkout AS (
    SELECT cart, min(seq) AS seq, arg_min("at", seq) AS "at" FROM e WHERE type = 'checked_out' GROUP BY cart
),
before AS (
    SELECT e.seq, e.type, e.cart, e.product, e.qty, e.price, e.currency, c."at" AS checkout_at
    FROM e JOIN checkout c ON e.cart = c.cart AND e.seq < c.seq
    WHERE e.type IN ('item_added', 'quantity_changed', 'item_removed')
),
reset AS (  -- the last quantity change or removal of each line: where its count restarts
    SELECT cart, product, max(seq) AS seq,
           arg_max(CASE WHEN type = 'quantity_changed' THEN qty ELSE 0 END, seq) AS base
    FROM before WHERE type <> 'item_added' GROUP BY cart, product
),
lines AS (
    SELECT b.cart, b.product, any_value(b.checkout_at) AS "at",
           arg_max(b.currency, b.seq) FILTER (WHERE b.type = 'item_added') AS currency,
           coalesce(any_value(r.base), 0)
             + coalesce(sum(b.qty) FILTER (WHERE b.type = 'item_added' AND b.seq > coalesce(r.seq, 0)), 0) AS qty,
           arg_max(b.price, b.seq) FILTER (WHERE b.type = 'item_added') AS price
    FROM before b LEFT JOIN reset r ON b.cart = r.cart AND b.product = r.product
    GROUP BY b.cart, b.product
)
SELECT strftime(CAST("at" AS TIMESTAMPTZ) AT TIME ZONE 'UTC', '%Y-%m-%d') AS date, currency,
       count(DISTINCT cart) AS orders, sum(qty) AS units, sum(qty * price) AS revenue
FROM lines
WHERE qty > 0 AND price IS NOT NULL  -- a line only changed or removed, never added, is no line
GROUP BY ALL
ORDER BY date, currency;
