-- Up Migration
-- Payment gateways and external payments (/admin/gateways, /admin/gateways/manual,
-- /admin/externalPayments; docs/specs.md#payment-gateways).
--
-- The external payments list searches by a prefix of the name and sorts by name or id.
CREATE INDEX external_payments_name_prefix_idx ON external_payments (lower(name) text_pattern_ops);
CREATE INDEX external_payments_name_sort_idx ON external_payments (lower(name), id);

-- Down Migration
DROP INDEX IF EXISTS external_payments_name_sort_idx;
DROP INDEX IF EXISTS external_payments_name_prefix_idx;
