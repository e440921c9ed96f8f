-- The read models' generation: a rebuild starts a new one, and consumers of an older one stop.
CREATE TABLE analytics.meta (
  id integer PRIMARY KEY CHECK (id = 1),
  generation integer NOT NULL
);
INSERT INTO analytics.meta (id, generation) VALUES (1, 0);
