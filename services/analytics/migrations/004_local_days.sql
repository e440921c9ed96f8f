-- Each organization's time zone and opening hours as the analytics service last saw them (from
-- the calls it answers), and the buckets summed per local day of that zone, so a year of history
-- is read as 365 rows. When the zone or the hours change, the days are summed again.
CREATE TABLE analytics.org_settings (
  org_id uuid PRIMARY KEY,
  timezone text NOT NULL,
  business_hours jsonb NOT NULL
);

CREATE TABLE analytics.daily (
  org_id uuid NOT NULL,
  metric text NOT NULL,
  day date NOT NULL,
  value bigint NOT NULL,
  PRIMARY KEY (org_id, metric, day)
);
