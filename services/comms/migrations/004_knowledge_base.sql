-- The knowledge base: sources (text, URL, uploaded file), the chunks they are split into for
-- search, and the statistics search uses (term frequencies, the vocabulary).

CREATE TABLE comms.knowledge_sources (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL,
  type text NOT NULL CHECK (type IN ('text', 'url', 'file')),
  title text,
  url text,
  filename text,
  content_type text,
  status text NOT NULL DEFAULT 'processing' CHECK (status IN ('processing', 'ready', 'error')),
  error text,
  chunk_count integer NOT NULL DEFAULT 0,
  bytes bigint,
  -- The document of a text source, kept until it is ingested.
  body text,
  -- The stored upload of a file source.
  object_key text,
  -- Ingestion: how many times it was started, and until when the current worker holds it.
  attempts integer NOT NULL DEFAULT 0,
  claimed_until timestamptz,
  -- Why the last attempt failed, while it may still be retried.
  last_error text,
  -- The distinct words of a ready source, taken out of the vocabulary when it is deleted.
  words text[] NOT NULL DEFAULT '{}',
  -- Title, URL and file name, for the listing's search.
  search_text text NOT NULL DEFAULT '',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX knowledge_sources_org_newest ON comms.knowledge_sources (org_id, created_at DESC, id DESC);
CREATE INDEX knowledge_sources_search ON comms.knowledge_sources USING gin (search_text gin_trgm_ops);
-- The ingestion queue: sources still processing, by when they may be claimed.
CREATE INDEX knowledge_sources_processing ON comms.knowledge_sources (claimed_until NULLS FIRST, created_at) WHERE status = 'processing';

CREATE TABLE comms.knowledge_chunks (
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL,
  source_id uuid NOT NULL REFERENCES comms.knowledge_sources (id) ON DELETE CASCADE,
  position integer NOT NULL,
  -- The headings the chunk sits under ("Pricing > Drain cleaning"); they weigh more in ranking.
  heading text NOT NULL DEFAULT '',
  content text NOT NULL,
  tsv tsvector GENERATED ALWAYS AS (
    setweight(to_tsvector('english'::regconfig, heading), 'A') || setweight(to_tsvector('english'::regconfig, content), 'D')
  ) STORED,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- The tsvector stays in the row (compressed if need be) rather than out of line: every
-- candidate of a search reads it, while the content is read only for the few results.
ALTER TABLE comms.knowledge_chunks ALTER COLUMN tsv SET STORAGE MAIN;

CREATE INDEX knowledge_chunks_tsv ON comms.knowledge_chunks USING gin (tsv);
CREATE INDEX knowledge_chunks_org ON comms.knowledge_chunks (org_id);
CREATE INDEX knowledge_chunks_source ON comms.knowledge_chunks (source_id, position);

-- The words of the organization's ready documents, with how many sources have each: the
-- vocabulary that misspelled query words are corrected against.
CREATE TABLE comms.knowledge_words (
  org_id uuid NOT NULL,
  word text NOT NULL,
  sources integer NOT NULL,
  PRIMARY KEY (org_id, word)
);

-- Words by prefix in byte order (the same on every collation), where corrections are looked for.
CREATE INDEX knowledge_words_prefix ON comms.knowledge_words (org_id, (word COLLATE "C"));

-- How many chunks of each source have each lexeme: the document frequencies that weigh a
-- query's rare terms above its common ones.
CREATE TABLE comms.knowledge_terms (
  org_id uuid NOT NULL,
  source_id uuid NOT NULL REFERENCES comms.knowledge_sources (id) ON DELETE CASCADE,
  lexeme text NOT NULL,
  chunks integer NOT NULL,
  PRIMARY KEY (org_id, lexeme, source_id)
);

CREATE INDEX knowledge_terms_source ON comms.knowledge_terms (source_id);
